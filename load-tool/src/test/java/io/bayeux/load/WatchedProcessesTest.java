package io.bayeux.load;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WatchedProcessesTest {
    @Test
    void theCpuAProcessUsedInTheWindowIsSharedOverTheDeliveriesAndThePublishedMessages() {
        long pid = ProcessHandle.current().pid();
        WatchedProcesses watched = new WatchedProcesses(List.of(pid));
        watched.start();
        Long start = ProcessFigures.cpuNanos(pid);
        assertNotNull(start, "read from /proc");
        // Work until /proc counts at least 50 ms more (its clock ticks are 10 ms), for at most 10 s.
        long sum = 0;
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (ProcessFigures.cpuNanos(pid) - start < 50_000_000L && System.nanoTime() < deadline) {
            sum += Long.toString(sum).hashCode();
        }
        WatchedProcesses.Figure figure = watched.finish(1_000, 10).get(0);
        assertEquals(pid, figure.pid());
        assertEquals("java", figure.name());
        assertTrue(figure.cpuSeconds() >= 0.05, figure + " after " + sum);
        assertEquals(figure.cpuSeconds() * 1e6 / 1_000, figure.microsPerDelivery(), 1e-9);
        assertEquals(figure.cpuSeconds() * 1e6 / 10, figure.microsPerPublished(), 1e-9);
        assertTrue(figure.line().startsWith("process " + pid + " (java): "), figure.line());
    }

    @Test
    void aProcessThatIsGoneIsToldAsNotRead() {
        long gone = Long.MAX_VALUE;
        WatchedProcesses watched = new WatchedProcesses(List.of(gone));
        watched.start();
        WatchedProcesses.Figure figure = watched.finish(100, 1).get(0);
        assertNull(figure.cpuSeconds());
        assertNull(figure.microsPerDelivery());
        assertEquals("process " + gone + " (?): CPU not read", figure.line());
    }

    @Test
    void nothingWatchedNothingTold() {
        WatchedProcesses watched = new WatchedProcesses(List.of());
        watched.start();
        assertTrue(watched.finish(100, 1).isEmpty());
    }
}
