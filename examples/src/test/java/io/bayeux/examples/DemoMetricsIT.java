package io.bayeux.examples;

import io.bayeux.metrics.BayeuxMetrics;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The demo's metrics and health probes, as it serves them by default, on its own port. */
class DemoMetricsIT {
    @Test
    void theDemoServesItsMetricsAndHealthOnItsOwnPort() throws Exception {
        DemoMetrics metrics = new DemoMetrics();
        NettyBayeuxServer.Builder builder = DemoServer.configure(NettyBayeuxServer.builder().port(0));
        metrics.addTo(builder);
        try (NettyBayeuxServer server = builder.build().start();
             BayeuxMetrics bound = metrics.bind(server);
             HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            HttpResponse<String> scrape = http.send(HttpRequest.newBuilder(server.uri().resolve("/metrics")).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, scrape.statusCode());
            assertTrue(scrape.body().contains("# TYPE bayeux_sessions gauge"), "the server's meters are scraped");
            for (String probe : new String[] {"/health/live", "/health/ready"}) {
                HttpResponse<String> health = http.send(HttpRequest.newBuilder(server.uri().resolve(probe)).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(200, health.statusCode(), probe);
                assertTrue(health.body().startsWith("{\"status\":\"UP\""), health.body());
            }
        }
    }
}
