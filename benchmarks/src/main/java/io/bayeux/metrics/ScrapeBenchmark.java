package io.bayeux.metrics;

import io.bayeux.api.server.LocalSession;
import io.bayeux.transport.NettyBayeuxServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * What the {@code /metrics} endpoint's work costs for a bound server with {@code sessions} local
 * sessions subscribed to 100 channels: every meter read (the server's, Netty's, the JVM's), the
 * registry's snapshot and the text written into the reply's bytes; with and without the JVM's
 * meters, to tell their share. Run with {@code -prof gc} for
 * what a scrape allocates; {@code ScrapeCostTest} bounds that.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 4, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class ScrapeBenchmark {
    @Param({"1000"})
    public int sessions;
    /** Whether the JVM's meters are bound too (memory, GC, threads, class loading, uptime), as {@code BayeuxMetrics.bind} does. */
    @Param({"true", "false"})
    public boolean jvm;

    private PrometheusMeterRegistry registry;
    private NettyBayeuxServer server;
    private BayeuxMetrics metrics;
    private Scrape scrape;

    @Setup
    public void setUp() {
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        server = NettyBayeuxServer.builder().host("127.0.0.1").port(0).build();
        metrics = jvm ? BayeuxMetrics.bind(server, registry) : BayeuxMetrics.bindWithoutJvm(server, registry);
        server.start();
        for (int i = 0; i < sessions; i++) {
            LocalSession session = server.bayeux().newLocalSession("s" + i);
            session.handshake();
            session.getChannel("/chat/room/" + (i % 100)).subscribe((channel, message) -> { });
        }
        scrape = new Scrape(registry);
    }

    @TearDown
    public void tearDown() {
        metrics.close();
        server.close();
        registry.close();
    }

    /** The text format, as the endpoint answers it. */
    @Benchmark
    public byte[] scrape() {
        return scrape.scrape(Scrape.TEXT);
    }
}
