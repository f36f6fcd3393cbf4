package io.bayeux.load;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DeliveryWindowsTest {
    private static final long START = 5_000_000;

    @Test
    void eachMessageCountsInTheWindowItWasSentInWhereverItsDeliveryFalls() {
        DeliveryWindows windows = new DeliveryWindows(Duration.ofSeconds(10));
        windows.start(START, 25_000_000);
        // Sent at 9.999 s, delivered 2 s later: still the first window's.
        windows.expect(START + 9_999_000, 3);
        windows.delivered(START + 9_999_000, 2_000_000);
        windows.delivered(START + 9_999_000, 1_000);
        windows.delivered(START + 9_999_000, 3_000);
        windows.expect(START + 10_000_000, 2);
        windows.delivered(START + 10_000_000, 500);

        List<RunResult.Window> figures = windows.figures();

        assertEquals(3, figures.size(), "25 s of publishing in 10 s windows");
        RunResult.Window first = figures.get(0);
        assertEquals(0, first.fromSecond());
        assertEquals(3, first.deliveries());
        assertEquals(3, first.expected());
        assertEquals(0, first.lost());
        assertEquals(0.3, first.deliveredPerSecond(), 1e-9);
        assertEquals(3_000, first.p50(), 3, "HdrHistogram keeps 3 significant digits");
        assertEquals(2_000_000, first.max(), 2_000);
        RunResult.Window second = figures.get(1);
        assertEquals(10, second.fromSecond());
        assertEquals(1, second.deliveries());
        assertEquals(2, second.expected());
        assertEquals(1, second.lost(), "one of the two never came");
        assertEquals(500, second.p99());
    }

    @Test
    void theLastWindowIsAsLongAsThePublishingLeftAndTakesWhatWasSentLate() {
        DeliveryWindows windows = new DeliveryWindows(Duration.ofSeconds(10));
        windows.start(START, 25_000_000);
        windows.expect(START + 40_000_000, 1);
        windows.delivered(START + 40_000_000, 7);

        RunResult.Window last = windows.figures().get(2);

        assertEquals(20, last.fromSecond());
        assertEquals(5, last.seconds(), 1e-9);
        assertEquals(1, last.deliveries());
        assertEquals(0.2, last.deliveredPerSecond(), 1e-9);
    }

    @Test
    void aFailedPublishIsNoLongerExpectedInItsWindow() {
        DeliveryWindows windows = new DeliveryWindows(Duration.ofSeconds(1));
        windows.start(START, 1_000_000);
        windows.expect(START + 10, 4);
        windows.expect(START + 10, -4);

        RunResult.Window only = windows.figures().get(0);

        assertEquals(0, only.expected());
        assertEquals(0, only.lost());
        assertEquals(0, only.p99(), "no deliveries: no latency");
    }

    @Test
    void aMessageThatArrivedAlthoughItsPublishFailedLosesNothing() {
        DeliveryWindows windows = new DeliveryWindows(Duration.ofSeconds(1));
        windows.start(START, 1_000_000);
        windows.expect(START + 10, 2);
        windows.delivered(START + 10, 5);
        windows.delivered(START + 10, 5);
        windows.expect(START + 10, -2);

        RunResult.Window only = windows.figures().get(0);

        assertEquals(2, only.deliveries());
        assertEquals(0, only.lost());
    }

    @Test
    void theWindowsAddUpToTheWholeRun() {
        DeliveryWindows windows = new DeliveryWindows(Duration.ofMillis(700));
        windows.start(START, 3_000_000);
        long sent = 0;
        for (long t = 0; t < 3_000_000; t += 1_000) {
            windows.expect(START + t, 2);
            windows.delivered(START + t, t % 997);
            sent++;
        }

        List<RunResult.Window> figures = windows.figures();

        assertEquals(5, figures.size());
        assertEquals(sent, figures.stream().mapToLong(RunResult.Window::deliveries).sum());
        assertEquals(2 * sent, figures.stream().mapToLong(RunResult.Window::expected).sum());
        assertEquals(sent, figures.stream().mapToLong(RunResult.Window::lost).sum());
        assertEquals(3.0, figures.stream().mapToDouble(RunResult.Window::seconds).sum(), 1e-9);
        assertTrue(figures.stream().allMatch(w -> w.deliveries() > 0));
    }

    @Test
    void beforeMeasuringNothingIsCounted() {
        DeliveryWindows windows = new DeliveryWindows(Duration.ofSeconds(1));
        windows.expect(1, 1);
        windows.delivered(1, 1);

        assertEquals(List.of(), windows.figures());
    }

    @Test
    void aWindowMustHaveALength() {
        assertThrows(IllegalArgumentException.class, () -> new DeliveryWindows(Duration.ZERO));
    }
}
