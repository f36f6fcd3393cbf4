package io.bayeux.metrics;

import io.bayeux.transport.HttpRoute;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class MetricsEndpointsTest {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    private static HttpRoute.Request get(String path, String from) {
        return new HttpRoute.Request("GET", path, Map.of(), Map.of(), new byte[0], new InetSocketAddress(from, 40000));
    }

    @Test
    void remoteClientsAreRefusedUnlessAllowed() throws Exception {
        Map<String, HttpRoute> routes = MetricsEndpoints.builder(registry).build().routes(() -> true);
        assertEquals(List.of("/metrics", "/health/live", "/health/ready"), List.copyOf(routes.keySet()));
        for (var route : routes.entrySet()) {
            assertEquals(403, route.getValue().answer(get(route.getKey(), "192.0.2.7")).status(), route.getKey());
            assertEquals(200, route.getValue().answer(get(route.getKey(), "127.0.0.1")).status(), route.getKey());
        }
        Map<String, HttpRoute> open = MetricsEndpoints.builder(registry).remoteAccess(true).build().routes(() -> true);
        assertEquals(200, open.get("/metrics").answer(get("/metrics", "192.0.2.7")).status());
    }

    @Test
    void pathsAreConfigurableAndDistinct() {
        Map<String, HttpRoute> routes = MetricsEndpoints.builder(registry).metricsPath("/admin/prometheus")
                .livePath("/livez").readyPath("/readyz").build().routes(() -> true);
        assertEquals(List.of("/admin/prometheus", "/livez", "/readyz"), List.copyOf(routes.keySet()));
        assertThrows(IllegalArgumentException.class, () -> MetricsEndpoints.builder(registry).livePath("/metrics").build());
        assertThrows(IllegalArgumentException.class, () -> MetricsEndpoints.builder(registry).metricsPath("metrics"));
    }

    @Test
    void theScrapeIsOpenMetricsOnlyForWhoNamesIt() {
        assertEquals(Scrape.TEXT, Scrape.contentType(null));
        assertEquals(Scrape.TEXT, Scrape.contentType("text/plain;version=0.0.4"));
        assertEquals(Scrape.OPENMETRICS, Scrape.contentType("application/openmetrics-text;version=1.0.0,text/plain;q=0.5"));
    }

    @Test
    void theScrapeAnswersGetAndHeadOnly() throws Exception {
        HttpRoute scrape = MetricsEndpoints.builder(registry).build().routes(() -> true).get("/metrics");
        HttpRoute.Reply post = scrape.answer(new HttpRoute.Request("POST", "/metrics", Map.of(), Map.of(), new byte[0],
                new InetSocketAddress("127.0.0.1", 40000)));
        assertEquals(405, post.status());
        assertEquals("GET, HEAD", post.headers().get("Allow"));
    }

    @Test
    void aServerThatDoesNotServeIsNotReady() throws Exception {
        HttpRoute ready = MetricsEndpoints.builder(registry).build().routes(() -> false).get("/health/ready");
        HttpRoute.Reply reply = ready.answer(get("/health/ready", "127.0.0.1"));
        assertEquals(503, reply.status());
        assertEquals("{\"status\":\"DOWN\",\"checks\":{\"server\":{\"ready\":false,\"detail\":\"not serving\"}}}", new String(reply.body()));
    }
}
