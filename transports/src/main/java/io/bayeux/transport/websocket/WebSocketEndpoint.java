package io.bayeux.transport.websocket;

import io.bayeux.api.Promise;
import io.bayeux.api.server.BayeuxContext;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.common.json.JsonCodec;
import io.bayeux.server.BayeuxServerImpl;
import io.bayeux.server.spi.Endpoint;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * A WebSocket connection as the core sees it: it can push at any time. Messages are encoded
 * on the calling thread and the write's completion is reported, on the application executor,
 * when the frame has left: that is what paces a session's flusher, which goes on from the
 * completion with the next batch (its {@code DeQueueListener}s and encoding), so never on an
 * event loop.
 */
final class WebSocketEndpoint implements Endpoint {
    private final Channel channel;
    private final BayeuxServerImpl bayeux;
    private final Executor executor;
    /** The cookie the upgrade sent, or the one its 101 set: never null. */
    private final String browserId;
    /** Whether the upgrade carried no cookie (browserId is the one its 101 set). */
    private final boolean cookieLess;
    private final String userAgent;
    private final InetSocketAddress remoteAddress;
    /** The upgrade request's: every message on this connection carries it. */
    private final BayeuxContext bayeuxContext;

    WebSocketEndpoint(Channel channel, BayeuxServerImpl bayeux, Executor executor, String browserId, boolean cookieLess,
                      String userAgent, InetSocketAddress remoteAddress, BayeuxContext bayeuxContext) {
        this.channel = channel;
        this.bayeux = bayeux;
        this.executor = executor;
        this.browserId = browserId;
        this.cookieLess = cookieLess;
        this.userAgent = userAgent;
        this.remoteAddress = remoteAddress;
        this.bayeuxContext = bayeuxContext;
    }

    @Override
    public String transportName() {
        return WebSocketUpgrade.WEBSOCKET;
    }

    @Override
    public boolean canPush() {
        return true;
    }

    @Override
    public void write(List<ServerMessage> messages, Promise<Void> written) {
        byte[] json;
        try {
            json = bayeux.encode(messages);
        } catch (JsonCodec.JsonException x) {
            written.fail(x);
            return;
        }
        if (!channel.isActive() || channel.eventLoop().isShuttingDown()) {
            written.fail(new IllegalStateException("WebSocket closed: " + channel));
            return;
        }
        channel.writeAndFlush(new TextWebSocketFrame(Unpooled.wrappedBuffer(json))).addListener(future -> {
            Runnable completion = future.isSuccess() ? () -> written.succeed(null) : () -> written.fail(future.cause());
            try {
                executor.execute(completion);
            } catch (RejectedExecutionException x) {
                // Overloaded: completing in place beats losing the completion, which would stop the session's pushes.
                completion.run();
            }
        });
    }

    Channel channel() {
        return channel;
    }

    @Override
    public String browserId() {
        return browserId;
    }

    @Override
    public boolean adoptsSessions() {
        return cookieLess;
    }

    @Override
    public String userAgent() {
        return userAgent;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    @Override
    public BayeuxContext bayeuxContext() {
        return bayeuxContext;
    }

    @Override
    public String toString() {
        return "WebSocketEndpoint[" + channel + "]";
    }
}
