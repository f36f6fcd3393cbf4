package io.bayeux.client.transport;

import io.bayeux.api.Message;
import io.bayeux.client.ClientConfig;
import io.bayeux.common.HashMapMessage;
import io.bayeux.common.json.JsonCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketClientHandshakeException;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolConfig;
import io.netty.handler.codec.http.websocketx.WebSocketClientProtocolHandler;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.ssl.SslContext;
import io.netty.util.AttributeKey;

import java.net.URI;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * WebSocket: one connection per client, opened on the first send and again after it closes;
 * every batch is one text frame, and what the server sends (replies and pushed messages)
 * arrives as frames at any time.
 *
 * <p>A connection fails in one of two ways. One on which nothing ever arrived — its upgrade
 * refused ({@link UpgradeRefusedException}), not answered within
 * {@link ClientConfig#upgradeTimeout()}, or cut during or right after it, as some proxies do
 * — is reported as {@link UnusableException}, so that the client falls back to long-polling.
 * One that worked (a message arrived on it) and then dropped is a network failure: the client
 * tries WebSocket again, and falls back if that new connection fails before it works. A
 * connection closed by {@link #abort()} is never a reason to fall back.
 *
 * <p>Each connection remembers, by id, the messages written on it whose reply has not come
 * yet; when it closes they are reported as failed, so that nothing waits for a reply that can
 * no longer come (a handshake or a publish in flight when the connection drops).
 */
public final class WebSocketTransport implements ClientTransport {
    public static final String NAME = "websocket";
    private static final AttributeKey<Map<String, Message.Mutable>> IN_FLIGHT = AttributeKey.valueOf("bayeux.inFlight");
    /** Set once a message arrived on the connection: it worked. */
    private static final AttributeKey<Boolean> WORKED = AttributeKey.valueOf("bayeux.worked");
    /** Set when this side closed the connection on purpose. */
    private static final AttributeKey<Boolean> ABORTED = AttributeKey.valueOf("bayeux.aborted");

    private final ClientConfig config;
    private URI url;
    private URI wsUrl;
    private CookieJar cookies;
    private Listener listener;
    private EventLoopGroup group;
    private SslContext ssl;
    /** Guarded by this: the open connection, ready for frames, or null. */
    private Channel channel;
    /** Guarded by this: a connection being opened. */
    private Channel opening;
    /** Guarded by this: batches waiting for the connection being opened ({@link #opening}, never null while this is not empty). */
    private List<List<Message.Mutable>> pending = new ArrayList<>();
    /** What the server's answer to the last upgrade said of extensions, or null; written on its event loop. */
    private volatile String extensions;

    public WebSocketTransport(ClientConfig config) {
        this.config = config;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void init(URI url, CookieJar cookies, EventLoopGroup group, Listener listener) {
        this.url = url;
        this.wsUrl = URI.create(url.toString().replaceFirst("^(?i)http", "ws"));
        this.cookies = cookies;
        this.group = group;
        this.listener = listener;
        this.ssl = NettyClients.secure(url) ? NettyClients.sslContext(config.sslContext()) : null;
    }

    @Override
    public void send(List<Message.Mutable> messages) {
        Channel ready;
        synchronized (this) {
            ready = channel;
            if (ready == null || !ready.isActive()) {
                pending.add(messages);
                if (opening == null) {
                    open();
                }
                return;
            }
        }
        write(ready, messages);
    }

    private void write(Channel target, List<Message.Mutable> messages) {
        byte[] json;
        try {
            json = config.jsonCodec().write(messages);
        } catch (JsonCodec.JsonException x) {
            listener.onFailure(x, messages);
            return;
        }
        Map<String, Message.Mutable> inFlight = target.attr(IN_FLIGHT).get();
        for (Message.Mutable message : messages) {
            if (message.getId() != null) {
                inFlight.put(message.getId(), message);
            }
        }
        target.writeAndFlush(new TextWebSocketFrame(Unpooled.wrappedBuffer(json))).addListener(future -> {
            if (!future.isSuccess()) {
                // Reported here, not again when the connection closes.
                messages.forEach(m -> inFlight.remove(m.getId(), m));
                listener.onFailure(future.cause(), messages);
            }
        });
    }

    /** Under the lock. */
    private void open() {
        HttpHeaders headers = new DefaultHttpHeaders();
        config.headers().forEach(headers::set);
        String cookie = cookies.header();
        if (cookie != null) {
            headers.set(HttpHeaderNames.COOKIE, cookie);
        }
        WebSocketClientProtocolConfig protocol = WebSocketClientProtocolConfig.newBuilder()
                .webSocketUri(wsUrl)
                .customHeaders(headers)
                .maxFramePayloadLength(config.maxMessageSize())
                .handshakeTimeoutMillis(config.upgradeTimeout().toMillis())
                .dropPongFrames(true)
                // The JSON decoder refuses malformed UTF-8 (the connection then closes as for any
                // undecodable frame): a second pass over every byte received is not needed.
                .withUTF8Validator(false)
                .allowExtensions(config.websocketCompression())
                .build();
        var bootstrap = NettyClients.bootstrap(group, config.connectTimeout()).handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                ch.attr(IN_FLIGHT).set(new ConcurrentHashMap<>());
                if (ssl != null) {
                    ch.pipeline().addLast(ssl.newHandler(ch.alloc(), url.getHost(), NettyClients.port(url)));
                }
                ch.pipeline().addLast(new HttpClientCodec());
                ch.pipeline().addLast(new HttpObjectAggregator(64 * 1024));
                ch.pipeline().addLast(new CookieCapture());
                if (config.websocketCompression()) {
                    ch.pipeline().addLast(Compression.offer(config.maxMessageSize()));
                }
                ch.pipeline().addLast(new WebSocketClientProtocolHandler(protocol));
                ch.pipeline().addLast(new WebSocketFrameAggregator(config.maxMessageSize()));
                ch.pipeline().addLast(new FrameHandler());
            }
        });
        var connect = bootstrap.connect(url.getHost(), NettyClients.port(url));
        opening = connect.channel();
        connect.addListener(future -> {
            if (!future.isSuccess()) {
                failPending(connect.channel(), future.cause());
            }
        });
    }

    private void opened(Channel ready) {
        List<List<Message.Mutable>> batches;
        synchronized (this) {
            if (opening != ready) {
                ready.close();
                return;
            }
            opening = null;
            channel = ready;
            batches = pending;
            pending = new ArrayList<>();
        }
        for (List<Message.Mutable> batch : batches) {
            write(ready, batch);
        }
    }

    /**
     * The connection {@code failed} closed or could not open: reports the messages written on it
     * that got no reply, and, when it was the one being opened, those that waited for it. The
     * batches waiting belong to the connection being opened, which need not be {@code failed}: a
     * connection closed by {@link #abort()} may report its end after a send on the client's thread
     * (a handshake from the callback of a refused one) began a new connection, which goes on.
     */
    private void failPending(Channel failed, Throwable cause) {
        List<Message.Mutable> messages = new ArrayList<>();
        Map<String, Message.Mutable> inFlight = failed.attr(IN_FLIGHT).getAndSet(new ConcurrentHashMap<>());
        if (inFlight != null) {
            messages.addAll(inFlight.values());
        }
        Throwable failure = cause;
        if (!(cause instanceof UnusableException) && failed.attr(WORKED).get() == null && failed.attr(ABORTED).get() == null) {
            failure = new UnusableException("WebSocket to " + wsUrl + " failed before it worked: " + cause, cause);
        }
        boolean current;
        synchronized (this) {
            current = opening == failed || channel == failed;
            if (channel == failed) {
                channel = null;
            }
            if (opening == failed) {
                opening = null;
                pending.forEach(messages::addAll);
                pending = new ArrayList<>();
            }
        }
        if (current || !messages.isEmpty()) {
            listener.onFailure(failure, messages);
        }
    }

    /**
     * The extensions the server accepted in its answer to the last upgrade (its
     * {@code Sec-WebSocket-Extensions}, e.g. {@code permessage-deflate; server_no_context_takeover}),
     * or null when it accepted none or no upgrade was answered yet; any thread.
     */
    public String extensions() {
        return extensions;
    }

    @Override
    public void abort() {
        Channel open;
        Channel starting;
        synchronized (this) {
            open = channel;
            starting = opening;
        }
        if (open != null) {
            open.attr(ABORTED).set(Boolean.TRUE);
            open.close();
        }
        if (starting != null) {
            starting.attr(ABORTED).set(Boolean.TRUE);
            starting.close();
        }
    }

    @Override
    public void terminate() {
        Channel open;
        synchronized (this) {
            open = channel;
        }
        if (open != null && open.isActive()) {
            open.writeAndFlush(new CloseWebSocketFrame(1000, "Bye"));
        }
        abort();
    }

    @Override
    public String toString() {
        return "WebSocketTransport[" + wsUrl + "]";
    }

    /** Keeps the cookies of the upgrade response. */
    private final class CookieCapture extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
            if (msg instanceof FullHttpResponse response) {
                cookies.store(response.headers());
                extensions = response.headers().get(HttpHeaderNames.SEC_WEBSOCKET_EXTENSIONS);
            }
            super.channelRead(ctx, msg);
        }
    }

    private final class FrameHandler extends SimpleChannelInboundHandler<WebSocketFrame> {
        /** Whether {@link #WORKED} was set on this handler's connection. Its event loop only. */
        private boolean worked;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) {
            if (frame instanceof TextWebSocketFrame) {
                List<Message.Mutable> messages;
                try {
                    ByteBuf content = frame.content();
                    // An inflated message's array as it is; anything else copied out.
                    byte[] bytes = ByteBufUtil.getBytes(content, content.readerIndex(), content.readableBytes(), false);
                    messages = List.copyOf(config.jsonCodec().decode(bytes, HashMapMessage::new));
                } catch (JsonCodec.JsonException x) {
                    ctx.close();
                    listener.onFailure(x, List.of());
                    return;
                }
                if (!worked) {
                    worked = true;
                    ctx.channel().attr(WORKED).set(Boolean.TRUE);
                }
                Map<String, Message.Mutable> inFlight = ctx.channel().attr(IN_FLIGHT).get();
                for (Message.Mutable message : messages) {
                    if (message.getId() != null && message.containsKey(Message.SUCCESSFUL_FIELD)) {
                        inFlight.remove(message.getId());
                    }
                }
                listener.onMessages(messages);
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
            if (event == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_COMPLETE) {
                opened(ctx.channel());
            } else if (event == WebSocketClientProtocolHandler.ClientHandshakeStateEvent.HANDSHAKE_TIMEOUT) {
                failPending(ctx.channel(), new java.util.concurrent.TimeoutException("WebSocket upgrade not answered within " + config.upgradeTimeout()));
                ctx.close();
            }
            super.userEventTriggered(ctx, event);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            failPending(ctx.channel(), new ClosedChannelException());
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            Throwable failure = cause instanceof WebSocketClientHandshakeException
                    ? new UpgradeRefusedException("WebSocket upgrade refused: " + cause.getMessage(), cause) : cause;
            failPending(ctx.channel(), failure);
            ctx.close();
        }
    }
}
