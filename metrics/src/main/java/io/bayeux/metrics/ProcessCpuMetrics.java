package io.bayeux.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.time.Duration;
import java.util.function.DoubleSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * The process's CPU, under the names of Micrometer's {@code ProcessorMetrics}:
 * {@code process.cpu.time} (nanoseconds, a counter), {@code process.cpu.usage} (0 to 1 of the
 * processors available, since the previous read), {@code system.cpu.count} and
 * {@code system.load.average.1m}; not {@code system.cpu.usage}.
 *
 * <p>Why not Micrometer's binder: its two usage gauges ask the JDK's
 * {@code getProcessCpuLoad()} and {@code getCpuLoad()}, which in a container read the cgroup's
 * files at each call, about 80 KB of garbage and a quarter of a millisecond each: two thirds of
 * what a scrape of a bound server allocated. Here the usage is the process's CPU time over the
 * wall time since the previous read, both one system call.
 *
 * <p>Thread-safe: the usage's previous sample is guarded by {@code this}.
 */
final class ProcessCpuMetrics implements MeterBinder {
    /** Reads closer together than this (two registries scraped at once) answer the previous usage. */
    static final Duration MIN_INTERVAL = Duration.ofMillis(10);

    private final LongSupplier cpuNanos;
    private final LongSupplier nanoTime;
    private final IntSupplier processors;
    private final DoubleSupplier loadAverage;
    /** The previous sample and the usage it gave, guarded by {@code this}. */
    private long lastCpu;
    private long lastTime;
    private double lastUsage;

    ProcessCpuMetrics() {
        this(cpuTimeOf(ManagementFactory.getOperatingSystemMXBean()), System::nanoTime, Runtime.getRuntime()::availableProcessors,
                ManagementFactory.getOperatingSystemMXBean()::getSystemLoadAverage);
    }

    /**
     * @param cpuNanos    the process's CPU time in nanoseconds, or a negative value when unknown
     * @param nanoTime    the monotonic clock
     * @param processors  the processors available to the process
     * @param loadAverage the system's load average over the last minute, or a negative value when unknown
     */
    ProcessCpuMetrics(LongSupplier cpuNanos, LongSupplier nanoTime, IntSupplier processors, DoubleSupplier loadAverage) {
        this.cpuNanos = cpuNanos;
        this.nanoTime = nanoTime;
        this.processors = processors;
        this.loadAverage = loadAverage;
        this.lastCpu = cpuNanos.getAsLong();
        this.lastTime = nanoTime.getAsLong();
    }

    private static LongSupplier cpuTimeOf(OperatingSystemMXBean os) {
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun::getProcessCpuTime : () -> -1;
    }

    /** The gauges hold their functions strongly: a registry holds a meter's object weakly, and these are this binder's own. */
    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("system.cpu.count", processors, IntSupplier::getAsInt)
                .description("The number of processors available to the Java virtual machine").strongReference(true).register(registry);
        if (loadAverage.getAsDouble() >= 0) {
            Gauge.builder("system.load.average.1m", loadAverage, DoubleSupplier::getAsDouble)
                    .description("The sum of the number of runnable entities queued to available processors and the number"
                            + " of runnable entities running on the available processors averaged over a period of time")
                    .strongReference(true).register(registry);
        }
        if (cpuNanos.getAsLong() >= 0) {
            // A function counter holds its object weakly, with no option not to: this, which the usage gauge holds strongly.
            FunctionCounter.builder("process.cpu.time", this, metrics -> metrics.cpuNanos.getAsLong()).baseUnit("ns")
                    .description("The \"cpu time\" used by the Java Virtual Machine process").register(registry);
            Gauge.builder("process.cpu.usage", this, ProcessCpuMetrics::usage)
                    .description("The \"recent cpu usage\" for the Java Virtual Machine process").strongReference(true).register(registry);
        }
    }

    /** The share of the available processors the process used since the previous read (or since this was made), 0 to 1. */
    synchronized double usage() {
        long now = nanoTime.getAsLong();
        long elapsed = now - lastTime;
        if (elapsed < MIN_INTERVAL.toNanos()) {
            return lastUsage;
        }
        long cpu = cpuNanos.getAsLong();
        lastUsage = Math.clamp((double) (cpu - lastCpu) / elapsed / Math.max(1, processors.getAsInt()), 0.0, 1.0);
        lastCpu = cpu;
        lastTime = now;
        return lastUsage;
    }

    @Override
    public String toString() {
        return "ProcessCpuMetrics[usage=" + lastUsage + "]";
    }
}
