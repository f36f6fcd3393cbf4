package io.bayeux.transport.internal;

import io.bayeux.server.spi.ServerObserver;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/**
 * Tells a {@link ServerObserver} the bytes each connection reads and writes, at the head of the
 * pipeline (before TLS, so what it counts is what crosses the network). Only in the pipelines
 * of a server observed when the connection opened: an unobserved server has no such handler.
 *
 * <p>Stateless and {@linkplain Sharable shared} by every connection of a server.
 */
@ChannelHandler.Sharable
public final class TrafficCounter extends ChannelDuplexHandler {
    public static final String NAME = "traffic";

    private final ServerObserver observer;

    public TrafficCounter(ServerObserver observer) {
        this.observer = observer;
    }

    ServerObserver observer() {
        return observer;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        long bytes = sizeOf(msg);
        if (bytes > 0) {
            observer.bytesRead(bytes);
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        long bytes = sizeOf(msg);
        if (bytes > 0) {
            observer.bytesWritten(bytes);
        }
        ctx.write(msg, promise);
    }

    private static long sizeOf(Object msg) {
        if (msg instanceof ByteBuf buf) {
            return buf.readableBytes();
        }
        if (msg instanceof ByteBufHolder holder) {
            return holder.content().readableBytes();
        }
        return 0;
    }

    @Override
    public String toString() {
        return "TrafficCounter[" + observer + "]";
    }
}
