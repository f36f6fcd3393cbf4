package io.bayeux.transport.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.AttributeKey;

import java.util.function.LongSupplier;

/**
 * Stamps each accepted connection with the time it was accepted, on the listening channel's
 * pipeline, before the connection is handed to its event loop: the earliest moment the server
 * knows of it, in the order the kernel queued the connections. A WebSocket's upgrade request may
 * be read much later (a busy client or event loop); whether a cookie-less socket may adopt a
 * session depends on when its connection was opened, which is this time (see
 * {@code Endpoint.acceptedAt()}). Shared by the server's one listening channel; stateless.
 */
@ChannelHandler.Sharable
public final class AcceptTimes extends ChannelInboundHandlerAdapter {
    private static final AttributeKey<Long> ACCEPTED_AT = AttributeKey.valueOf(AcceptTimes.class, "acceptedAt");
    private final LongSupplier clock;

    /** Stamps with {@code clock}, the core's scheduler time. */
    public AcceptTimes(LongSupplier clock) {
        this.clock = clock;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        if (message instanceof Channel accepted) {
            accepted.attr(ACCEPTED_AT).set(clock.getAsLong());
        }
        ctx.fireChannelRead(message);
    }

    /**
     * When {@code channel} was accepted, or {@link Long#MAX_VALUE} when it was not stamped; the
     * stamp is taken off the channel (a connection that keeps it elsewhere, as a WebSocket one does
     * for as long as it is open, holds no attribute map for it).
     */
    @SuppressWarnings("deprecation") // Netty deprecates removal for keys shared by several users; this one is private and taken once
    public static long take(Channel channel) {
        Long at = channel.attr(ACCEPTED_AT).getAndRemove();
        return at == null ? Long.MAX_VALUE : at;
    }
}
