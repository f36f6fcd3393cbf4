package io.bayeux.load;

import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.transport.WebSocketTransport;
import io.bayeux.metrics.BayeuxMetrics;
import io.bayeux.metrics.MetricsEndpoints;
import io.bayeux.transport.NettyBayeuxServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A server without the load tool's stats service is read through its scrape endpoint, when it has one. */
class MetricsScrapeIT {
    private static BayeuxClient connected(NettyBayeuxServer server) throws InterruptedException {
        ClientConfig config = ClientConfig.builder().build();
        BayeuxClient client = new BayeuxClient(server.uri().toString(), config, new WebSocketTransport(config));
        client.handshake();
        assertTrue(client.waitFor(Duration.ofSeconds(10), BayeuxClient.State.CONNECTED));
        return client;
    }

    @Test
    void aServerWithMetricsIsReadFromItsScrape() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (NettyBayeuxServer server = MetricsEndpoints.builder(registry).build()
                .addTo(NettyBayeuxServer.builder().host("127.0.0.1").port(0)).build();
             BayeuxMetrics metrics = BayeuxMetrics.bind(server, registry)) {
            server.start();
            BayeuxClient client = connected(server);
            try {
                Map<String, Object> stats = RunFigures.serverStats(client);
                assertEquals("metrics", stats.get("source"), () -> "read from /metrics: " + stats);
                assertEquals(1L, stats.get("sessions"));
                assertTrue((Long) stats.get("heapUsedBytes") > 0, () -> "heap: " + stats);
                assertTrue((Long) stats.get("cpuNanos") > 0, () -> "CPU: " + stats);

                // A server whose pid the tool does not know: its CPU over the run is what its scrapes tell.
                RunResult.Server remote = new RunFigures(null, 1, List.of(server.uri())).server(null, null, 1000, null, null, stats, stats, client);
                assertNotNull(remote.cpuSeconds(), "the CPU between two scrapes");
                assertTrue(remote.cpuSeconds() > 0 && remote.cpuMicrosPerDelivery() == remote.cpuSeconds() * 1e6 / 1000, remote::toString);
                assertEquals("/metrics (process_cpu_time_ns_total)", RunFigures.cpuSource(remote.stats()));

                // Its CPU is counted from the measured phase's start, not from before the warm-up.
                Map<String, Object> beforeWarmUp = Map.of("source", "metrics", "cpuNanos", 1L);
                Map<String, Object> atStart = RunFigures.serverStats(client);
                RunResult.Server measured = new RunFigures(null, 1, List.of(server.uri())).server(null, null, 1000, null, null, beforeWarmUp, atStart, client);
                long sinceStart = ProcessFigures.ownCpuNanos() - (Long) atStart.get("cpuNanos");
                assertTrue(measured.cpuSeconds() * 1e9 <= sinceStart,
                        () -> "counted from the measured phase's start: " + measured.cpuSeconds() + " s, at most " + sinceStart / 1e9 + " s");
            } finally {
                client.disconnect();
            }
        }
    }

    @Test
    void aRemoteServersCpuIsKnownOnlyWhenBothStatsTellIt() {
        assertEquals(1.5, RunFigures.reportedCpuSeconds(Map.of("cpuNanos", 500_000_000L), Map.of("cpuNanos", 2_000_000_000L)));
        assertNull(RunFigures.reportedCpuSeconds(Map.of("sessions", 1L), Map.of("cpuNanos", 2_000_000_000L)), "no CPU in the scrape before");
        assertNull(RunFigures.reportedCpuSeconds(null, Map.of("cpuNanos", 2_000_000_000L)));
        assertNull(RunFigures.reportedCpuSeconds(Map.of("cpuNanos", 3L), Map.of("cpuNanos", 2L)), "another process: restarted");
        assertEquals("its stats service", RunFigures.cpuSource(Map.of("cpuNanos", 1L)));
    }

    @Test
    void aServerWithoutMetricsNorStatsServiceHasNoStats() throws Exception {
        try (NettyBayeuxServer server = NettyBayeuxServer.builder().host("127.0.0.1").port(0).build()) {
            server.start();
            BayeuxClient client = connected(server);
            try {
                assertNull(RunFigures.serverStats(client));
            } finally {
                client.disconnect();
            }
        }
    }

    @Test
    void theTextFormatGivesTheFiguresOfItsSeries() {
        Map<String, Object> stats = MetricsScrape.figures(String.join("\n",
                "# TYPE bayeux_sessions gauge",
                "bayeux_sessions{transport=\"websocket\"} 3.0",
                "bayeux_sessions{transport=\"long-polling\"} 2.0",
                "jvm_memory_used_bytes{area=\"heap\",id=\"G1 Eden Space\"} 1000.0",
                "jvm_memory_used_bytes{area=\"nonheap\",id=\"Metaspace\"} 99999.0",
                "jvm_memory_used_bytes{area=\"heap\",id=\"G1 Old Gen\"} 24.0",
                "process_cpu_time_ns_total 5.0E9",
                "jvm_gc_pause_seconds_count{action=\"end of minor GC\",cause=\"G1 Evacuation Pause\",gc=\"G1 Young Generation\"} 4.0",
                "jvm_gc_pause_seconds_sum{action=\"end of minor GC\",cause=\"G1 Evacuation Pause\",gc=\"G1 Young Generation\"} 0.25",
                "bayeux_queue_depth_messages_sum 30.0",
                "bayeux_queue_depth_messages_count 20.0"));
        assertEquals(5L, stats.get("sessions"));
        assertEquals(1024L, stats.get("heapUsedBytes"));
        assertEquals(5_000_000_000L, stats.get("cpuNanos"));
        assertEquals(4L, stats.get("gcCount"));
        assertEquals(250L, stats.get("gcMillis"));
        assertEquals(1.5, stats.get("queueDepthMean"));
        assertNull(MetricsScrape.figures("jvm_memory_used_bytes{area=\"heap\"} 1.0\n"), "not this project's server");
    }
}
