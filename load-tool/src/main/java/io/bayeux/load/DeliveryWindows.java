package io.bayeux.load;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The measured phase cut into consecutive windows ({@code --windows}), each message counted in
 * the window it was <em>published</em> in: the first window holds the messages of the first
 * measured batches and tells how a fresh server answered them, wherever their deliveries fell.
 * For each window: the deliveries (first arrivals of an expected message), the deliveries expected,
 * what is lost (expected minus delivered, at the end of the run), and the latency distribution.
 *
 * <p>The windows span the scheduled publishing time ({@code batches × batch interval}); the last
 * one may be shorter, and a message sent after the schedule (a pacer that fell behind) counts in
 * the last window. A publish that failed on the client side is taken out of its window's
 * expectations; if it arrived all the same (its connection was cut after the server had it) it
 * still counts as a delivery there, so a window's "lost" is exact only when no publish failed
 * (it is never below 0).
 *
 * <p>Thread-safety: {@link #start} is called once, by the pacer, before any other call and before
 * the first measured message is sent, and is published to the event loops by the sends that follow;
 * {@link #expect} is called by the pacer and the publish callbacks, {@link #delivered} by the event
 * loops, {@link #figures} once all have stopped. The counters are atomics; the histograms are
 * {@link ConcurrentHistogram}s.
 */
final class DeliveryWindows {
    private final long windowMicros;
    /** Written once by {@link #start}, then read only. */
    private volatile long startMicros;
    private volatile long spanMicros;
    private volatile Histogram[] latencies;
    private volatile LongAdder[] deliveries;
    private volatile AtomicLongArray expected;

    /** @param window the length of a window; positive */
    DeliveryWindows(Duration window) {
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("--windows must be positive: " + window);
        }
        this.windowMicros = Math.max(1, window.toNanos() / 1000);
    }

    /**
     * Measuring starts: messages sent from {@code startMicros} on, over {@code spanMicros} of
     * scheduled publishing, go into windows. Times are in the run's clock (µs).
     */
    void start(long startMicros, long spanMicros) {
        int count = (int) Math.max(1, Math.min(Integer.MAX_VALUE - 8, (spanMicros + windowMicros - 1) / windowMicros));
        Histogram[] histograms = new Histogram[count];
        LongAdder[] adders = new LongAdder[count];
        for (int i = 0; i < count; i++) {
            histograms[i] = new ConcurrentHistogram(3);
            adders[i] = new LongAdder();
        }
        this.spanMicros = Math.max(1, spanMicros);
        this.expected = new AtomicLongArray(count);
        this.deliveries = adders;
        this.startMicros = startMicros;
        this.latencies = histograms;
    }

    /** A measured message sent at {@code sentMicros} calls for {@code count} more deliveries (fewer when negative: its publish failed). */
    void expect(long sentMicros, int count) {
        // The histograms are written last by start(): once they are seen, so is the rest.
        if (latencies != null) {
            expected.addAndGet(index(sentMicros), count);
        }
    }

    /** The first arrival of a measured message sent at {@code sentMicros}, after {@code latencyMicros}. */
    void delivered(long sentMicros, long latencyMicros) {
        Histogram[] histograms = latencies;
        if (histograms != null) {
            int i = index(sentMicros);
            deliveries[i].increment();
            histograms[i].recordValue(Math.max(0, latencyMicros));
        }
    }

    private int index(long sentMicros) {
        long i = (sentMicros - startMicros) / windowMicros;
        return (int) Math.max(0, Math.min(i, expected.length() - 1));
    }

    /** Every window's figures, in order; empty when measuring never started. */
    List<RunResult.Window> figures() {
        List<RunResult.Window> windows = new ArrayList<>();
        Histogram[] histograms = latencies;
        if (histograms == null) {
            return windows;
        }
        for (int i = 0; i < histograms.length; i++) {
            long from = i * windowMicros;
            double seconds = Math.min(windowMicros, spanMicros - from) / 1e6;
            Histogram h = histograms[i];
            long delivered = deliveries[i].sum();
            long wanted = expected.get(i);
            // A message that arrived although its publish failed is delivered and no longer expected.
            windows.add(new RunResult.Window(from / 1e6, seconds, delivered, delivered / seconds, wanted, Math.max(0, wanted - delivered),
                    h.getValueAtPercentile(50), h.getValueAtPercentile(99), h.getMaxValue()));
        }
        return windows;
    }
}
