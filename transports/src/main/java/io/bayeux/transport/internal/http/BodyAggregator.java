package io.bayeux.transport.internal.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;

/** Aggregates request bodies up to the max message size; past it, answers 413 with a JSON body. */
public final class BodyAggregator extends HttpObjectAggregator {
    private final int maxMessageSize;

    public BodyAggregator(int maxMessageSize) {
        super(maxMessageSize);
        this.maxMessageSize = maxMessageSize;
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        HttpErrors.sendAndClose(ctx, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                "Request body larger than the maximum of " + maxMessageSize + " bytes");
    }
}
