package io.bayeux.metrics;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcessCpuMetricsTest {
    private final AtomicLong cpu = new AtomicLong(5_000_000_000L);
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);

    private ProcessCpuMetrics metrics(int processors) {
        return new ProcessCpuMetrics(cpu::get, clock::get, () -> processors, () -> 1.5);
    }

    @Test
    void theUsageIsTheCpuTimeOverTheWallTimeOfTheAvailableProcessorsSinceThePreviousRead() {
        ProcessCpuMetrics metrics = metrics(2);
        clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
        cpu.addAndGet(TimeUnit.MILLISECONDS.toNanos(500));
        assertEquals(0.25, metrics.usage(), 1e-9, "half a core of two");
        clock.addAndGet(TimeUnit.SECONDS.toNanos(2));
        cpu.addAndGet(TimeUnit.SECONDS.toNanos(4));
        assertEquals(1.0, metrics.usage(), 1e-9, "both cores");
    }

    @Test
    void aReadSoonAfterAnotherAnswersTheSameUsage() {
        ProcessCpuMetrics metrics = metrics(1);
        clock.addAndGet(TimeUnit.SECONDS.toNanos(1));
        cpu.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
        assertEquals(0.1, metrics.usage(), 1e-9);
        clock.addAndGet(ProcessCpuMetrics.MIN_INTERVAL.toNanos() - 1);
        cpu.addAndGet(TimeUnit.MILLISECONDS.toNanos(9));
        assertEquals(0.1, metrics.usage(), 1e-9, "a second registry scraped at once");
    }

    @Test
    void itRegistersMicrometersNamesButTheSystemsUsage() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        metrics(4).bindTo(registry);
        assertEquals(5e9, registry.get("process.cpu.time").functionCounter().count());
        assertEquals("ns", registry.get("process.cpu.time").functionCounter().getId().getBaseUnit());
        assertEquals(4, registry.get("system.cpu.count").gauge().value());
        assertEquals(1.5, registry.get("system.load.average.1m").gauge().value());
        registry.get("process.cpu.usage").gauge();
        assertNull(registry.find("system.cpu.usage").gauge());
    }

    @Test
    void theMetersOutliveACollectionOfTheBinder() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new ProcessCpuMetrics().bindTo(registry);
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        assertTrue(registry.get("process.cpu.time").functionCounter().count() > 0, "the process's CPU time, not NaN");
        assertTrue(registry.get("process.cpu.usage").gauge().value() >= 0, "not NaN");
        assertTrue(registry.get("system.cpu.count").gauge().value() >= 1);
    }
}
