package io.bayeux.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bayeux.server.spi.ReadinessCheck;
import io.bayeux.transport.NettyBayeuxServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The scrape and the health probes over HTTP, on the server's own port and on an admin port. */
class EndpointsIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<AutoCloseable> closing = new ArrayList<>();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    /** What the test's readiness check answers. */
    private final AtomicReference<ReadinessCheck.Result> redis = new AtomicReference<>(ReadinessCheck.Result.READY);

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closing.reversed()) {
            c.close();
        }
    }

    private MetricsEndpoints endpoints() {
        return MetricsEndpoints.builder(registry).readinessCheck(new ReadinessCheck() {
            @Override
            public String name() {
                return "redis";
            }

            @Override
            public Result check() {
                return redis.get();
            }
        }).build();
    }

    private NettyBayeuxServer start(NettyBayeuxServer.Builder builder) {
        NettyBayeuxServer server = builder.host("127.0.0.1").port(0).build();
        closing.add(server);
        closing.add(BayeuxMetrics.bind(server, registry));
        return server.start();
    }

    private static JsonNode json(HttpResponse<String> response) throws Exception {
        assertEquals("application/json", response.headers().firstValue("Content-Type").orElse(null));
        return JSON.readTree(response.body());
    }

    @Test
    void theScrapeAnswersOpenMetricsToWhoAsksForIt() throws Exception {
        NettyBayeuxServer server = start(endpoints().addTo(NettyBayeuxServer.builder()));
        URI metrics = server.uri().resolve("/metrics");

        HttpResponse<String> openMetrics = Http.get(metrics,
                "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1");
        assertEquals(200, openMetrics.statusCode());
        assertEquals(Scrape.OPENMETRICS, openMetrics.headers().firstValue("Content-Type").orElse(null));
        Map<String, PrometheusParser.Family> families = PrometheusParser.parse(openMetrics.body(), "openmetrics");
        assertEquals("counter", families.get("bayeux_handshakes").type());
        assertEquals("gauge", families.get("bayeux_sessions").type());
        assertEquals("histogram", families.get("bayeux_delivery_latency_seconds").type());

        HttpResponse<String> text = Http.get(metrics, "text/plain");
        assertEquals(Scrape.TEXT, text.headers().firstValue("Content-Type").orElse(null));
        assertEquals("gauge", PrometheusParser.parse(text.body(), "text").get("bayeux_channels").type());
    }

    @Test
    void readinessFollowsTheChecksOnTheServersOwnPort() throws Exception {
        NettyBayeuxServer server = start(endpoints().addTo(NettyBayeuxServer.builder()));

        HttpResponse<String> live = Http.get(server.uri().resolve("/health/live"), null);
        assertEquals(200, live.statusCode());
        assertEquals("UP", json(live).get("status").asText());

        HttpResponse<String> ready = Http.get(server.uri().resolve("/health/ready"), null);
        assertEquals(200, ready.statusCode());
        JsonNode report = json(ready);
        assertEquals("UP", report.get("status").asText());
        assertTrue(report.at("/checks/server/ready").asBoolean());
        assertTrue(report.at("/checks/redis/ready").asBoolean());

        redis.set(ReadinessCheck.Result.notReady("cannot reach redis://127.0.0.1:6379"));
        HttpResponse<String> notReady = Http.get(server.uri().resolve("/health/ready"), null);
        assertEquals(503, notReady.statusCode());
        report = json(notReady);
        assertEquals("DOWN", report.get("status").asText());
        assertFalse(report.at("/checks/redis/ready").asBoolean());
        assertEquals("cannot reach redis://127.0.0.1:6379", report.at("/checks/redis/detail").asText());
        // Liveness is not readiness: a process that waits for its Redis is not to be restarted.
        assertEquals(200, Http.get(server.uri().resolve("/health/live"), null).statusCode());
    }

    @Test
    void anAdminPortServesTheSameAndIsNotReadyOnceTheServerStops() throws Exception {
        NettyBayeuxServer server = start(NettyBayeuxServer.builder());
        AdminServer admin = endpoints().startAdminServer(server, "127.0.0.1", 0);
        closing.add(admin);
        assertTrue(admin.port() != server.port());

        HttpResponse<String> scrape = Http.get(admin.uri().resolve("/metrics"), null);
        assertEquals(200, scrape.statusCode());
        assertEquals("gauge", PrometheusParser.parse(scrape.body(), "text").get("bayeux_connections").type());
        assertEquals(404, Http.get(admin.uri().resolve("/metrics/more"), null).statusCode());
        assertEquals(200, Http.get(admin.uri().resolve("/health/ready"), null).statusCode());

        server.stop();
        HttpResponse<String> stopped = Http.get(admin.uri().resolve("/health/ready"), null);
        assertEquals(503, stopped.statusCode());
        assertEquals("not serving", json(stopped).at("/checks/server/detail").asText());
        assertEquals(200, Http.get(admin.uri().resolve("/health/live"), null).statusCode());
    }
}
