package io.bayeux.transport.internal;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Stops reading a connection while it cannot take more writes, and reads again once its
 * outbound buffer drained below the low water mark.
 *
 * <p>Everything a client sends is answered, and an answered {@code /meta/connect} carries the
 * session's queue: a client that keeps sending but never reads would otherwise pile those
 * answers up in the connection's outbound buffer (direct memory, unbounded) past the session
 * queue's bound. Not reading also stops its messages from being handled, so such a client no
 * longer extends its session, which expires. Pushes are paced separately: the core stops
 * pushing to a connection that is not writable. Stateless and shared by every connection;
 * other reasons not to read may hold at the same time (see {@link ReadGate}).
 */
@ChannelHandler.Sharable
public final class ReadBackpressure extends ChannelInboundHandlerAdapter {
    /** Its name in the pipeline: a WebSocket connection removes it, its frame handler doing the same. */
    public static final String NAME = "readBackpressure";
    static final ReadBackpressure INSTANCE = new ReadBackpressure();

    private ReadBackpressure() {
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            ReadGate.resume(ctx.channel(), ReadGate.UNWRITABLE);
        } else {
            ReadGate.pause(ctx.channel(), ReadGate.UNWRITABLE);
        }
        ctx.fireChannelWritabilityChanged();
    }
}
