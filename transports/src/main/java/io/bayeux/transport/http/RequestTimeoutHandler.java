package io.bayeux.transport.http;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.concurrent.TimeUnit;

/**
 * Answers 408 and closes the connection when a request does not arrive completely within the
 * timeout (a client that stops half-way). A timer on the event loop; state confined to it.
 */
public final class RequestTimeoutHandler extends ChannelDuplexHandler {
    public static final String NAME = "requestTimeout";

    private final long timeoutMillis;
    private ScheduledFuture<?> timer;

    public RequestTimeoutHandler(long timeoutMillis) {
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (msg instanceof HttpRequest && timer == null) {
            timer = ctx.executor().schedule(() -> {
                timer = null;
                HttpErrors.sendAndClose(ctx, HttpResponseStatus.REQUEST_TIMEOUT,
                        "The request did not arrive completely within " + timeoutMillis + " ms");
            }, timeoutMillis, TimeUnit.MILLISECONDS);
        }
        if (msg instanceof LastHttpContent) {
            cancel();
        }
        super.channelRead(ctx, msg);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancel();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        cancel();
        super.channelInactive(ctx);
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }
}
