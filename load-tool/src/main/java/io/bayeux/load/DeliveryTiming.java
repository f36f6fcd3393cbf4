package io.bayeux.load;

import io.bayeux.server.spi.ServerObserver;

import java.util.concurrent.atomic.LongAccumulator;

/**
 * Times a broadcast inside the benchmark server, for the density mode: the newest arrival of a
 * client's publish among the messages flushed so far, and the latest flush of any of them
 * ({@link ServerObserver#delivered}). After one publish to many subscribers, the difference is
 * the server's part of the broadcast: from the publish read off its connection to the flush of
 * the last frame that carries it. The {@link StatsService} reports both when this observer is
 * installed ({@code bayeux-load server --broadcast-timing}).
 *
 * <p>Thread-safe: reported to from every event loop at once, into accumulators that do not
 * contend. Installing it makes the server read the clock once per flushed frame or push round.
 */
final class DeliveryTiming implements ServerObserver {
    private final LongAccumulator newestArrival = new LongAccumulator(Math::max, 0);
    private final LongAccumulator lastFlush = new LongAccumulator(Math::max, 0);

    @Override
    public void delivered(String transport, int messages, long oldestNanos, long flushedNanos) {
        if (oldestNanos != 0) {
            newestArrival.accumulate(oldestNanos);
            lastFlush.accumulate(flushedNanos);
        }
    }

    /** The {@link System#nanoTime()} of the newest publish arrival flushed so far, 0 before any. */
    long newestArrivalNanos() {
        return newestArrival.get();
    }

    /** The {@link System#nanoTime()} of the latest flush of a client's publish, 0 before any. */
    long lastFlushNanos() {
        return lastFlush.get();
    }

    @Override
    public String toString() {
        return "DeliveryTiming[newest arrival " + newestArrival.get() + ", last flush " + lastFlush.get() + "]";
    }
}
