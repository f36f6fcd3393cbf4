package io.bayeux.metrics;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * What the server's observer costs on a Prometheus registry: per frame delivered, per message
 * received, per byte count, and per scrape. Run with {@code -t 2} to see what two event loops
 * reporting at once cost each other, and {@code -prof gc} for what is allocated.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 4, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class ObserverBenchmark {
    private PrometheusMeterRegistry registry;
    private MeterObserver observer;

    @Setup
    public void setUp() {
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        observer = new MeterObserver(registry);
    }

    @TearDown
    public void tearDown() {
        observer.remove();
        registry.close();
    }

    /** A timed delivery: a flush that carries a client's publish, with its clock read. */
    @Benchmark
    public void deliveredTimed() {
        long now = System.nanoTime();
        observer.delivered("websocket", 1, now - 50_000, now);
    }

    /** An untimed delivery: server-side messages, only counted. */
    @Benchmark
    public void deliveredCounted() {
        observer.delivered("websocket", 1, 0, 0);
    }

    /** A frame's messages taken from a queue of one. */
    @Benchmark
    public void queueDepth() {
        observer.queueDepth(1);
    }

    /** A batch of one message received over WebSocket. */
    @Benchmark
    public void received() {
        observer.received("websocket", 1);
    }

    /** The bytes of one frame written. */
    @Benchmark
    public void bytesWritten() {
        observer.bytesWritten(120);
    }

    /** The text format of every meter of the server's observer. */
    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public String scrape() {
        return registry.scrape();
    }
}
