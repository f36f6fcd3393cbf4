package io.bayeux.client.transport;

import io.bayeux.api.Message;
import io.bayeux.client.ClientConfig;
import io.bayeux.common.HashMapMessage;
import io.bayeux.common.json.JsonCodec;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContentDecompressor;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslContext;
import io.netty.util.AttributeKey;

import java.io.IOException;
import java.net.URI;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Long-polling: each batch is a POST of a JSON array, and the response carries the replies and
 * queued messages. Keep-alive connections are reused, one request at a time each (a held
 * {@code /meta/connect} occupies one, other messages use another).
 *
 * <p>Messages other than {@code /meta/connect} keep their order: at most one request of them
 * is in flight, and what is sent meanwhile waits and goes as one batch when it completes
 * (parallel requests could reach the server in any order). A batch that carries a
 * {@code /meta/connect} goes at once on its own request, since the server may hold it.
 */
public final class LongPollingTransport implements ClientTransport {
    public static final String NAME = "long-polling";
    private static final AttributeKey<Exchange> EXCHANGE = AttributeKey.valueOf("bayeux.exchange");

    private final ClientConfig config;
    private URI url;
    private CookieJar cookies;
    private Listener listener;
    private io.netty.bootstrap.Bootstrap bootstrap;
    /** Idle keep-alive connections; guarded by itself. */
    private final ArrayDeque<Channel> idle = new ArrayDeque<>();
    private final Set<Channel> all = ConcurrentHashMap.newKeySet();
    /** Guarded by idle: whether a request without a {@code /meta/connect} is in flight. */
    private boolean busy;
    /** Guarded by idle: the messages waiting for that request to complete, in order. */
    private List<Message.Mutable> queued = new ArrayList<>();

    public LongPollingTransport(ClientConfig config) {
        this.config = config;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void init(URI url, CookieJar cookies, EventLoopGroup group, Listener listener) {
        this.url = url;
        this.cookies = cookies;
        this.listener = listener;
        SslContext ssl = NettyClients.secure(url) ? NettyClients.sslContext(config.sslContext()) : null;
        this.bootstrap = NettyClients.bootstrap(group, config.connectTimeout()).handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel channel) {
                if (ssl != null) {
                    channel.pipeline().addLast(ssl.newHandler(channel.alloc(), url.getHost(), NettyClients.port(url)));
                }
                channel.pipeline().addLast(new HttpClientCodec());
                channel.pipeline().addLast(new HttpContentDecompressor(0));
                channel.pipeline().addLast(new HttpObjectAggregator(config.maxMessageSize()));
                channel.pipeline().addLast(new ResponseHandler());
            }
        });
    }

    @Override
    public void send(List<Message.Mutable> messages) {
        boolean ordered = messages.stream().noneMatch(m -> io.bayeux.api.Channel.META_CONNECT.equals(m.getChannel()));
        if (ordered) {
            synchronized (idle) {
                if (busy) {
                    queued.addAll(messages);
                    return;
                }
                busy = true;
            }
        }
        post(messages, ordered);
    }

    /** An ordered request completed (or failed): the messages that waited for it go now, together. */
    private void next() {
        List<Message.Mutable> batch;
        synchronized (idle) {
            if (queued.isEmpty()) {
                busy = false;
                return;
            }
            batch = queued;
            queued = new ArrayList<>();
        }
        post(batch, true);
    }

    private void post(List<Message.Mutable> messages, boolean ordered) {
        byte[] body;
        try {
            body = config.jsonCodec().write(messages);
        } catch (JsonCodec.JsonException x) {
            failed(new Exchange(messages, null, ordered), x);
            return;
        }
        Exchange exchange = new Exchange(messages, body, ordered);
        Channel channel;
        synchronized (idle) {
            channel = idle.poll();
            while (channel != null && !channel.isActive()) {
                channel = idle.poll();
            }
        }
        if (channel != null) {
            write(channel, exchange);
            return;
        }
        ChannelFuture connect = bootstrap.connect(url.getHost(), NettyClients.port(url));
        // Known from now on, still connecting: an abort meanwhile closes it too, and the exchange fails.
        all.add(connect.channel());
        connect.channel().closeFuture().addListener(f -> all.remove(connect.channel()));
        connect.addListener(future -> {
            if (future.isSuccess()) {
                write(connect.channel(), exchange);
            } else {
                failed(exchange, future.cause());
            }
        });
    }

    /** Reports a failed exchange and lets the next ordered request go. */
    private void failed(Exchange exchange, Throwable cause) {
        try {
            listener.onFailure(cause, exchange.messages);
        } finally {
            if (exchange.ordered) {
                next();
            }
        }
    }

    private void write(Channel channel, Exchange exchange) {
        channel.attr(EXCHANGE).set(exchange);
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, NettyClients.target(url),
                Unpooled.wrappedBuffer(exchange.body));
        request.headers().set(HttpHeaderNames.HOST, NettyClients.hostHeader(url));
        request.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json;charset=UTF-8");
        request.headers().set(HttpHeaderNames.ACCEPT_ENCODING, HttpHeaderValues.GZIP);
        request.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, exchange.body.length);
        request.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        config.headers().forEach(request.headers()::set);
        String cookie = cookies.header();
        if (cookie != null) {
            request.headers().set(HttpHeaderNames.COOKIE, cookie);
        }
        channel.writeAndFlush(request).addListener(future -> {
            if (!future.isSuccess()) {
                fail(channel, future.cause());
            }
        });
    }

    private void fail(Channel channel, Throwable cause) {
        Exchange exchange = channel.attr(EXCHANGE).getAndSet(null);
        channel.close();
        if (exchange != null) {
            failed(exchange, cause);
        }
    }

    @Override
    public void abort() {
        synchronized (idle) {
            idle.clear();
        }
        for (Channel channel : List.copyOf(all)) {
            channel.close();
        }
    }

    @Override
    public void terminate() {
        abort();
    }

    @Override
    public String toString() {
        return "LongPollingTransport[" + url + "]";
    }

    private record Exchange(List<Message.Mutable> messages, byte[] body, boolean ordered) {
    }

    /** Reads the response of the request in flight on this connection. */
    private final class ResponseHandler extends SimpleChannelInboundHandler<FullHttpResponse> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
            Channel channel = ctx.channel();
            Exchange exchange = channel.attr(EXCHANGE).getAndSet(null);
            cookies.store(response.headers());
            if (exchange == null) {
                channel.close();
                return;
            }
            if (!response.status().equals(HttpResponseStatus.OK)) {
                channel.close();
                failed(exchange, new IOException("HTTP " + response.status() + ": "
                        + response.content().toString(java.nio.charset.StandardCharsets.UTF_8)));
                return;
            }
            List<Message.Mutable> messages;
            try {
                messages = List.copyOf(config.jsonCodec().decode(ByteBufUtil.getBytes(response.content()), HashMapMessage::new));
            } catch (JsonCodec.JsonException x) {
                channel.close();
                failed(exchange, x);
                return;
            }
            if (HttpUtil.isKeepAlive(response)) {
                synchronized (idle) {
                    idle.add(channel);
                }
            } else {
                channel.close();
            }
            try {
                listener.onMessages(messages);
            } finally {
                if (exchange.ordered) {
                    next();
                }
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            Exchange exchange = ctx.channel().attr(EXCHANGE).getAndSet(null);
            if (exchange != null) {
                failed(exchange, new ClosedChannelException());
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            fail(ctx.channel(), cause);
        }
    }
}
