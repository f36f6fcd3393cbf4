package io.bayeux.transport.internal.websocket;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.util.concurrent.EventExecutor;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Closes the WebSocket connections of one event loop that read and wrote nothing for the idle
 * timeout: one periodic task per loop instead of a timer (and a handler) per connection. Each
 * round, on the loop, looks at the loop's connections: one that was active since the last
 * round is marked quiet from now on; one that stayed quiet for the idle timeout is closed
 * (1001 "Idle"). So a connection is closed between the idle timeout and the idle timeout plus
 * a period after its last read or write, never before.
 *
 * <p>A round goes over the server's channel group and skips the other loops' channels: with
 * one loop per core that is a few pointer comparisons per connection per second.
 */
public final class IdleSweep implements Runnable {
    /** The longest period between two rounds; shorter idle timeouts get a quarter of theirs. */
    static final Duration MAX_PERIOD = Duration.ofSeconds(1);
    private final EventExecutor loop;
    private final ChannelGroup channels;
    private final long idleNanos;

    private IdleSweep(EventExecutor loop, ChannelGroup channels, long idleNanos) {
        this.loop = loop;
        this.channels = channels;
        this.idleNanos = idleNanos;
    }

    /** Starts one sweep per loop of {@code loops}, for the WebSocket connections among {@code channels}; they end with the loops. */
    public static void start(EventLoopGroup loops, ChannelGroup channels, Duration idleTimeout) {
        long idleNanos = idleTimeout.toNanos();
        long period = Math.max(TimeUnit.MILLISECONDS.toNanos(10), Math.min(MAX_PERIOD.toNanos(), idleNanos / 4));
        for (EventExecutor loop : loops) {
            loop.scheduleAtFixedRate(new IdleSweep(loop, channels, idleNanos), period, period, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void run() {
        long now = System.nanoTime();
        for (Channel channel : channels) {
            if (channel.eventLoop() != loop) {
                continue;
            }
            ChannelHandlerContext ctx = channel.pipeline().context(WebSocketFrameHandler.NAME);
            if (ctx != null && ctx.handler() instanceof WebSocketFrameHandler frames && frames.idleFor(now, idleNanos)) {
                frames.closeIdle(ctx);
            }
        }
    }
}
