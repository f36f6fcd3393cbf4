package io.bayeux.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;

import java.io.IOException;
import java.util.List;

/**
 * One idle WebSocket client of the density mode, as a Netty handler at the end of its
 * connection's pipeline: once the upgrade is done it handshakes, sends a first
 * {@code /meta/connect} (answered at once: {@code advice.timeout} 0) with one
 * {@code /meta/subscribe} per room in the same frame, then keeps one {@code /meta/connect} held
 * by the server, sending the next as each is answered. It publishes nothing; it tells its
 * {@link Listener} when it is ready (connected and subscribed to every room), of each message
 * on the broadcast channel, of a refusal, and when its connection closes.
 *
 * <p>Speaks Bayeux by hand (Jackson trees) so that a client costs only its socket and pipeline:
 * tens of thousands fit in one load-tool process. Thread-safety: every method runs on the
 * connection's event loop, which confines all fields.
 */
final class IdleClient extends SimpleChannelInboundHandler<WebSocketFrame> {
    /** Told of a client's progress, on its event loop. */
    interface Listener {
        /** Connected and subscribed to every room. */
        void ready(IdleClient client);

        /** A message on the broadcast channel arrived. */
        void broadcast(IdleClient client, JsonNode message);

        /** The server refused a handshake, connect or subscribe, or the connection failed while setting up. */
        void refused(IdleClient client, String reason);

        /** The connection closed. */
        void closed(IdleClient client);
    }

    private static final ObjectMapper JSON = new ObjectMapper();

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
            ObjectNode handshake = message("/meta/handshake");
            handshake.put("version", "1.0");
            handshake.putArray("supportedConnectionTypes").add("websocket");
            send(List.of(handshake));
        } else if (event == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_TIMEOUT) {
            listener.refused(this, "WebSocket upgrade timed out");
        }
        super.userEventTriggered(ctx, event);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) throws IOException {
        if (!(frame instanceof TextWebSocketFrame text)) {
            return;
        }
        JsonNode messages = JSON.readTree(text.text());
        for (JsonNode message : messages) {
            handle(message);
        }
    }

    private void handle(JsonNode message) {
        String on = message.path("channel").asText();
        if (on.equals(broadcastChannel) && message.has("data")) {
            listener.broadcast(this, message);
            return;
        }
        if (!on.startsWith("/meta/")) {
            return;
        }
        if (!message.path("successful").asBoolean(false)) {
            if (!leaving) {
                listener.refused(this, message.toString());
            }
            return;
        }
        switch (on) {
            case "/meta/handshake" -> {
                clientId = message.path("clientId").asText();
                ObjectNode connect = connect();
                connect.putObject("advice").put("timeout", 0);
                List<ObjectNode> batch = new java.util.ArrayList<>(rooms.size() + 1);
                batch.add(connect);
                for (String room : rooms) {
                    ObjectNode subscribe = message("/meta/subscribe");
                    subscribe.put("subscription", room);
                    batch.add(subscribe);
                }
                send(batch);
            }
            case "/meta/subscribe" -> {
                if (++subscribed == rooms.size() && !ready) {
                    ready = true;
                    listener.ready(this);
                }
            }
            case "/meta/connect" -> {
                if (!leaving) {
                    send(List.of(connect()));
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
            send(List.of(message("/meta/disconnect")));
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

    private ObjectNode connect() {
        ObjectNode connect = message("/meta/connect");
        connect.put("connectionType", "websocket");
        return connect;
    }

    private ObjectNode message(String on) {
        ObjectNode message = JSON.createObjectNode();
        message.put("channel", on);
        message.put("id", Integer.toString(++nextId));
        if (clientId != null) {
            message.put("clientId", clientId);
        }
        return message;
    }

    private void send(List<ObjectNode> messages) {
        ArrayNode array = JSON.createArrayNode();
        array.addAll(messages);
        channel.writeAndFlush(new TextWebSocketFrame(array.toString()));
    }
}
