package io.bayeux.load;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.util.concurrent.FastThreadLocal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * One idle WebSocket client of the density mode, as a Netty handler at the end of its
 * connection's pipeline: once the upgrade is done it handshakes, sends a first
 * {@code /meta/connect} (answered at once: {@code advice.timeout} 0) with one
 * {@code /meta/subscribe} per room in the same frame, then keeps one {@code /meta/connect} held
 * by the server, sending the next as each is answered. It publishes nothing; it tells its
 * {@link Listener} when it is ready (connected and subscribed to every room), of each message
 * on the broadcast channel, of a refusal, and when its connection closes.
 *
 * <p>Speaks Bayeux by hand (messages written as text, read with Jackson's streaming parser,
 * compressed ones inflated with one inflater per event loop when the server keeps no context)
 * so that a client costs little besides its socket and pipeline: tens of thousands fit in one
 * load-tool process, and their own CPU takes little from the server on the same machine.
 * Thread-safety: every method runs on the connection's event loop, which confines all fields.
 */
final class IdleClient extends SimpleChannelInboundHandler<WebSocketFrame> {
    /** Told of a client's progress, on its event loop. */
    interface Listener {
        /** Connected and subscribed to every room. */
        void ready(IdleClient client);

        /** A message on the broadcast channel arrived, {@code id} its {@code data.id} (null if none). */
        void broadcast(IdleClient client, String id);

        /** The server refused a handshake, connect or subscribe, or the connection failed while setting up. */
        void refused(IdleClient client, String reason);

        /** The connection closed. */
        void closed(IdleClient client);
    }

    private static final JsonFactory JSON = new JsonFactory();
    /** A frame's RSV1 bit, as {@link WebSocketFrame#rsv()} tells it: set on a message compressed by permessage-deflate. */
    private static final int RSV1 = 0x4;
    /** The end of a sync flush that RFC 7692 leaves out of each compressed message. */
    private static final byte[] SYNC_FLUSH_TAIL = {0, 0, (byte) 0xFF, (byte) 0xFF};
    /** The largest message inflated. */
    private static final int MAX_MESSAGE_SIZE = IdleClients.MAX_MESSAGE_SIZE;
    /** Per event loop, the inflater of messages compressed without context: one for all its connections. */
    private static final FastThreadLocal<Inflater> LOOP_INFLATER = new FastThreadLocal<>() {
        @Override
        protected Inflater initialValue() {
            return new Inflater(true);
        }
    };

    private final String broadcastChannel;
    private final List<String> rooms;
    private final Listener listener;
    /** Confined to the event loop. */
    private Channel channel;
    private String clientId;
    private int nextId;
    private int subscribed;
    private boolean ready;
    private boolean leaving;
    /** Whether the server compresses each message without context (so the loop's inflater serves). */
    private boolean serverNoContext;
    /** This connection's inflater when the server keeps context between its messages; made on first use. */
    private Inflater ownInflater;

    /**
     * @param broadcastChannel the channel of the broadcast every client is subscribed to, one of {@code rooms}
     * @param rooms            the channels it subscribes to
     */
    IdleClient(String broadcastChannel, List<String> rooms, Listener listener) {
        this.broadcastChannel = broadcastChannel;
        this.rooms = List.copyOf(rooms);
        this.listener = listener;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = ctx.channel();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE) {
            StringBuilder handshake = open(new StringBuilder(128).append('['), "/meta/handshake");
            send(handshake.append(",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\"]}]"));
        } else if (event == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_TIMEOUT) {
            listener.refused(this, "WebSocket upgrade timed out");
        }
        super.userEventTriggered(ctx, event);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) throws IOException, DataFormatException {
        if (!(frame instanceof TextWebSocketFrame text)) {
            return;
        }
        String json = (text.rsv() & RSV1) != 0 ? inflate(text.content()) : text.text();
        try (JsonParser parser = JSON.createParser(json)) {
            if (parser.nextToken() != JsonToken.START_ARRAY) {
                return;
            }
            while (parser.nextToken() == JsonToken.START_OBJECT) {
                read(parser);
            }
        }
    }

    /**
     * A compressed message inflated: with the loop's inflater, reset after it, when the server
     * keeps no context between its messages (as it answered the upgrade), else with this
     * connection's own.
     */
    private String inflate(ByteBuf content) throws DataFormatException {
        Inflater inflater;
        if (serverNoContext) {
            inflater = LOOP_INFLATER.get();
        } else {
            if (ownInflater == null) {
                ownInflater = new Inflater(true);
            }
            inflater = ownInflater;
        }
        int length = content.readableBytes();
        byte[] input = new byte[length + 4];
        content.getBytes(content.readerIndex(), input, 0, length);
        System.arraycopy(SYNC_FLUSH_TAIL, 0, input, length, 4);
        inflater.setInput(input);
        byte[] out = new byte[Math.max(64, 4 * length)];
        int size = 0;
        try {
            while (true) {
                if (size == out.length) {
                    if (size >= MAX_MESSAGE_SIZE) {
                        throw new DataFormatException("a message inflates past " + MAX_MESSAGE_SIZE + " bytes");
                    }
                    out = Arrays.copyOf(out, Math.min(2 * size, MAX_MESSAGE_SIZE));
                }
                int n = inflater.inflate(out, size, out.length - size);
                size += n;
                if (n == 0 && (inflater.needsInput() || inflater.finished() || inflater.needsDictionary())) {
                    break;
                }
            }
        } finally {
            if (serverNoContext) {
                inflater.reset();
            }
        }
        return new String(out, 0, size, StandardCharsets.UTF_8);
    }

    /** Reads one message of a frame, the parser on its start, and acts on it. */
    private void read(JsonParser parser) throws IOException {
        String on = "";
        String id = null;
        String error = null;
        String dataId = null;
        boolean data = false;
        boolean successful = false;
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken value = parser.nextToken();
            switch (name) {
                case "channel" -> on = parser.getText();
                case "successful" -> successful = value == JsonToken.VALUE_TRUE;
                case "clientId" -> id = parser.getText();
                case "error" -> error = parser.getText();
                case "data" -> {
                    data = true;
                    if (value == JsonToken.START_OBJECT) {
                        while (parser.nextToken() == JsonToken.FIELD_NAME) {
                            boolean isId = parser.currentName().equals("id");
                            parser.nextToken();
                            if (isId) {
                                dataId = parser.getText();
                            } else {
                                parser.skipChildren();
                            }
                        }
                    } else {
                        parser.skipChildren();
                    }
                }
                default -> parser.skipChildren();
            }
        }
        handle(on, successful, id, error, data, dataId);
    }

    private void handle(String on, boolean successful, String id, String error, boolean data, String dataId) {
        if (on.equals(broadcastChannel) && data) {
            listener.broadcast(this, dataId);
            return;
        }
        if (!on.startsWith("/meta/")) {
            return;
        }
        if (!successful) {
            if (!leaving) {
                listener.refused(this, on + " refused: " + error);
            }
            return;
        }
        switch (on) {
            case "/meta/handshake" -> {
                clientId = id;
                StringBuilder batch = new StringBuilder(64 * (rooms.size() + 1)).append('[');
                openConnect(batch).append(",\"advice\":{\"timeout\":0}}");
                for (String room : rooms) {
                    quoted(open(batch.append(','), "/meta/subscribe").append(",\"subscription\":"), room).append('}');
                }
                send(batch.append(']'));
            }
            case "/meta/subscribe" -> {
                if (++subscribed == rooms.size() && !ready) {
                    ready = true;
                    listener.ready(this);
                }
            }
            case "/meta/connect" -> {
                if (!leaving) {
                    send(openConnect(new StringBuilder(128).append('[')).append("}]"));
                }
            }
            case "/meta/disconnect" -> channel.close();
            default -> {
                // Nothing else is asked for.
            }
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (ownInflater != null) {
            ownInflater.end();
            ownInflater = null;
        }
        listener.closed(this);
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!ready && !leaving) {
            listener.refused(this, String.valueOf(cause));
        }
        ctx.close();
    }

    /** Sends {@code /meta/disconnect}; the connection closes when it is answered. Call on the event loop. */
    void leave() {
        leaving = true;
        if (clientId != null && channel.isActive()) {
            send(open(new StringBuilder(128).append('['), "/meta/disconnect").append("}]"));
        } else {
            channel.close();
        }
    }

    /** Closes the connection at once. Call on the event loop. */
    void close() {
        channel.close();
    }

    /** The event loop of this client's connection, which confines its state. */
    java.util.concurrent.Executor channelLoop() {
        return channel.eventLoop();
    }

    /** Whether the server answered the upgrade with {@code server_no_context_takeover}; on the loop, before the first frame. */
    void serverNoContext(boolean serverNoContext) {
        this.serverNoContext = serverNoContext;
    }

    /** Appends a {@code /meta/connect}, its object left open (see {@link #open}). */
    private StringBuilder openConnect(StringBuilder out) {
        return open(out, "/meta/connect").append(",\"connectionType\":\"websocket\"");
    }

    /** Appends a message on {@code on} with its id and the client's id: a JSON object the caller adds to and closes. */
    private StringBuilder open(StringBuilder out, String on) {
        quoted(out.append("{\"channel\":"), on);
        out.append(",\"id\":\"").append(++nextId).append('"');
        if (clientId != null) {
            quoted(out.append(",\"clientId\":"), clientId);
        }
        return out;
    }

    /** Appends {@code text} as a JSON string. */
    private static StringBuilder quoted(StringBuilder out, String text) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"');
    }

    private void send(CharSequence messages) {
        channel.writeAndFlush(new TextWebSocketFrame(Unpooled.copiedBuffer(messages, StandardCharsets.UTF_8)));
    }
}
