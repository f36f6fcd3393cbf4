package io.bayeux.load;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.HdrHistogram.Recorder;

import java.util.ArrayList;
import java.util.List;

/**
 * The delivery latencies of one run, in µs: event loops record into an HdrHistogram
 * {@link Recorder}, the sampler takes an interval histogram from it every second, and the
 * intervals taken while {@linkplain #startMeasuring() measuring} add up to the run's total.
 *
 * <p>Thread-safe: {@link #record} never blocks; {@link #takeInterval} is guarded by
 * {@code this} (the recycled histogram); the total is guarded by its own monitor.
 */
final class LatencyHistograms {
    private final Recorder recorder = new Recorder(3);
    /** Guarded by itself. */
    private final Histogram measured = new Histogram(3);
    /** Guarded by {@code this}. */
    private Histogram recycled;
    private volatile boolean measuring;

    /** Any thread: one delivery's latency. */
    void record(long micros) {
        recorder.recordValue(micros);
    }

    /** From now on the intervals taken count in {@link #measured()}. */
    void startMeasuring() {
        measuring = true;
    }

    /** The latencies recorded since the last call, added to the measured total when measuring. */
    synchronized Histogram takeInterval() {
        Histogram interval = recorder.getIntervalHistogram(recycled);
        recycled = interval;
        if (measuring) {
            synchronized (measured) {
                measured.add(interval);
            }
        }
        return interval;
    }

    /** The measured total so far at {@code percentile}. */
    long measuredAt(double percentile) {
        synchronized (measured) {
            return measured.getValueAtPercentile(percentile);
        }
    }

    /** A copy of the measured total. */
    Histogram measured() {
        synchronized (measured) {
            return measured.copy();
        }
    }

    static RunResult.Latency latency(Histogram h) {
        if (h.getTotalCount() == 0) {
            return new RunResult.Latency(0, 0, 0, 0, 0, 0, 0);
        }
        return new RunResult.Latency(h.getTotalCount(), h.getMean(), h.getValueAtPercentile(50), h.getValueAtPercentile(90),
                h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue());
    }

    /** The percentile curve of {@code h}: (percentile, µs) points, five ticks per half-distance, up to 100. */
    static List<double[]> percentiles(Histogram h) {
        List<double[]> points = new ArrayList<>();
        if (h.getTotalCount() == 0) {
            return points;
        }
        for (HistogramIterationValue v : h.percentiles(5)) {
            double percentile = v.getPercentileLevelIteratedTo();
            points.add(new double[] {percentile, v.getValueIteratedTo()});
            if (percentile >= 100) {
                break;
            }
        }
        return points;
    }
}
