package io.bayeux.load;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link LatencyHistograms}: intervals as the sampler takes them, and a total of the measured ones only. */
class LatencyHistogramsTest {
    private final LatencyHistograms latencies = new LatencyHistograms();

    @Test
    void onlyTheIntervalsTakenWhileMeasuringCountInTheTotal() {
        latencies.record(1_000);
        assertEquals(1, latencies.takeInterval().getTotalCount());
        latencies.startMeasuring();
        latencies.record(200);
        latencies.record(300);
        Histogram interval = latencies.takeInterval();
        assertEquals(2, interval.getTotalCount(), "an interval holds what was recorded since the last one");
        Histogram total = latencies.measured();
        assertEquals(2, total.getTotalCount(), "the warm-up value is not measured");
        assertTrue(latencies.measuredAt(100) < 1_000);
    }

    @Test
    void anEmptyHistogramHasZeroLatencyAndNoPercentiles() {
        Histogram empty = latencies.measured();
        assertEquals(new RunResult.Latency(0, 0, 0, 0, 0, 0, 0), LatencyHistograms.latency(empty));
        assertTrue(LatencyHistograms.percentiles(empty).isEmpty());
    }

    @Test
    void thePercentileCurveEndsAtOneHundred() {
        latencies.startMeasuring();
        for (int i = 1; i <= 100; i++) {
            latencies.record(i);
        }
        latencies.takeInterval();
        var points = LatencyHistograms.percentiles(latencies.measured());
        assertEquals(100.0, points.get(points.size() - 1)[0]);
        assertEquals(100, LatencyHistograms.latency(latencies.measured()).count());
    }
}
