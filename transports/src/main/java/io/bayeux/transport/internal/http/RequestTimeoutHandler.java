package io.bayeux.transport.internal.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;

/**
 * Answers 408 and closes the connection when a request does not arrive completely within the
 * timeout (a client that stops half-way, in its headers or its body). It sits after the HTTP
 * decoder, where a request's end is seen; its {@link #starter() starter} sits before the
 * decoder and starts the clock at a request's first bytes, so that a request that never
 * finishes its headers is timed too. A timer on the event loop; state confined to it.
 *
 * <p>The timer is not made and cancelled per request (a keep-alive connection carries one
 * request every few milliseconds under long-polling): a request notes when it started, and a
 * timer left over from an earlier request, when it fires, waits again for what the current
 * request has left, or lapses when no request is arriving. A connection has one timer at most.
 */
public final class RequestTimeoutHandler extends ChannelDuplexHandler {
    public static final String NAME = "requestTimeout";
    /** The name of the {@link #starter()} in the pipeline. */
    public static final String STARTER_NAME = "requestTimeoutStarter";

    private final long timeoutMillis;
    private final long timeoutNanos;
    private ChannelHandlerContext ctx;
    /** The pending timer, or null. */
    private ScheduledFuture<?> timer;
    /** Whether a request is arriving: its first bytes came, its end not yet. */
    private boolean arriving;
    /** When the arriving request's first bytes came, on the event loop's ticker. */
    private long startedAt;
    private boolean removed;

    public RequestTimeoutHandler(long timeoutMillis) {
        if (timeoutMillis <= 0) {
            throw new IllegalArgumentException("timeoutMillis must be positive: " + timeoutMillis);
        }
        this.timeoutMillis = timeoutMillis;
        this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    }

    /** The handler to put before the HTTP decoder: it starts the clock when request bytes arrive. */
    public ChannelInboundHandlerAdapter starter() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext starterCtx, Object msg) throws Exception {
                if (msg instanceof ByteBuf bytes && bytes.isReadable()) {
                    start();
                }
                super.channelRead(starterCtx, msg);
            }
        };
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (msg instanceof HttpRequest) {
            // A pipelined request whose first bytes came with the end of the previous one.
            start();
        }
        if (msg instanceof LastHttpContent) {
            // The timer, if any, lapses when it fires with no request arriving.
            arriving = false;
        }
        super.channelRead(ctx, msg);
    }

    /** Starts the clock unless it runs already (a request is arriving) or this handler left the pipeline. */
    private void start() {
        if (arriving || removed || ctx == null) {
            return;
        }
        arriving = true;
        startedAt = ctx.executor().ticker().nanoTime();
        if (timer == null) {
            schedule(timeoutNanos);
        }
    }

    private void schedule(long delayNanos) {
        timer = ctx.executor().schedule(this::expired, delayNanos, TimeUnit.NANOSECONDS);
    }

    /** The timer fired: the arriving request is late, or has time left, or there is none. */
    private void expired() {
        timer = null;
        if (!arriving || removed) {
            return;
        }
        long left = startedAt + timeoutNanos - ctx.executor().ticker().nanoTime();
        if (left > 0) {
            schedule(left);
            return;
        }
        arriving = false;
        HttpErrors.sendAndClose(ctx, HttpResponseStatus.REQUEST_TIMEOUT,
                "The request did not arrive completely within " + timeoutMillis + " ms");
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        removed = true;
        cancel();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        cancel();
        super.channelInactive(ctx);
    }

    private void cancel() {
        arriving = false;
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }
}
