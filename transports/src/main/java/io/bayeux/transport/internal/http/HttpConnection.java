package io.bayeux.transport.internal.http;

import io.bayeux.server.Scheduler;
import io.bayeux.transport.internal.LoopOutbox;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.ssl.SslHandler;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * What the requests of one HTTP connection share: what its pipeline is (TLS, gzip, the
 * encoder), its hold timer, its held request and whether a request is being handled. Made
 * when its {@link HttpRequestHandler} joins the pipeline (after the TLS and gzip handlers).
 * The final fields are read from any thread; the volatile ones are written from the event loop
 * and the executor.
 */
final class HttpConnection {
    final ChannelHandlerContext ctx;
    /** Whether this connection is TLS, so that the browser cookie gets {@code Secure}. */
    final boolean secure;
    /** Whether replies may go as {@link EncodedResponse}s: the pipeline's encoder writes them. */
    final boolean encodes;
    /** The pipeline's gzip handler, or null: a reply it would compress goes as a full response. */
    final GzipResponses gzip;
    /** The timer of this connection's held connects, made on its first long-poll; written on the event loop. */
    private volatile HoldTimer holds;
    /** The held request of this connection, cancelled if the connection closes first. */
    private volatile Scheduler.Cancellable inFlight;
    /** Whether a request is being handled: an idle timeout then leaves the connection open. */
    private volatile boolean busy;
    /** The outbox of this connection's event loop, found on the first reply written. */
    private volatile LoopOutbox outbox;

    HttpConnection(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        ChannelPipeline pipeline = ctx.pipeline();
        this.secure = pipeline.get(SslHandler.class) != null;
        this.encodes = pipeline.get(HttpCodec.ResponseEncoder.class) != null;
        this.gzip = pipeline.get(GzipResponses.class);
    }

    /** On the event loop: the connection's hold timer, made on first use. */
    HoldTimer holdTimer(LoopOutbox.Registry outboxes) {
        HoldTimer timer = holds;
        if (timer == null) {
            timer = new HoldTimer(ctx.executor(), outboxes.timersOf(ctx.executor()));
            holds = timer;
        }
        return timer;
    }

    /** From any thread: the outbox of this connection's event loop, looked up in {@code outboxes} the first time only. */
    LoopOutbox outbox(LoopOutbox.Registry outboxes) {
        LoopOutbox found = outbox;
        if (found == null) {
            // Two threads may look it up at once: they find the same one.
            found = outboxes.of(ctx.channel());
            outbox = found;
        }
        return found;
    }

    /** The hold timer, or null before the connection's first Bayeux request. */
    HoldTimer holds() {
        return holds;
    }

    boolean busy() {
        return busy;
    }

    void busy(boolean busy) {
        this.busy = busy;
    }

    /** A request of this connection is held until {@code held} completes or is cancelled; cancelled now if the connection closed. */
    void holding(Scheduler.Cancellable held) {
        inFlight = held;
        if (!ctx.channel().isActive()) {
            held.cancel();
        }
    }

    /** The request being handled was answered. */
    void answered() {
        inFlight = null;
        busy = false;
    }

    /** The connection closed: its held request, if any, is cancelled. */
    void closed() {
        Scheduler.Cancellable held = inFlight;
        if (held != null) {
            held.cancel();
        }
    }

    /** Runs {@code task} on {@code executor}, the connection busy meanwhile; an overloaded executor is answered 503. */
    void dispatch(Executor executor, FullHttpRequest request, Runnable task) {
        busy = true;
        try {
            executor.execute(task);
        } catch (RejectedExecutionException x) {
            busy = false;
            send(request, HttpErrors.response(HttpResponseStatus.SERVICE_UNAVAILABLE, "Server overloaded, retry later"));
        }
    }

    /** On the event loop: answers {@code request}, keeping the connection open as it asked. */
    void send(FullHttpRequest request, FullHttpResponse response) {
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
        write(HttpUtil.isKeepAlive(request), response);
    }

    /** Writes and flushes {@code response}, then closes the connection unless {@code keepAlive}. */
    void write(boolean keepAlive, FullHttpResponse response) {
        if (keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            ctx.writeAndFlush(response);
        } else {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
