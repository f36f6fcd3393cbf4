package io.bayeux.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.transport.WebSocketTransport;
import io.bayeux.transport.NettyBayeuxServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every series the Grafana dashboard of {@code docs/grafana} queries is one a server with its metrics bound exports. */
class DashboardIT {
    private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "bayeux-dashboard.json");
    /** The metric names in a PromQL expression: the exported prefixes (functions, labels and keywords have none of them). */
    private static final Pattern METRIC = Pattern.compile("\\b(?:bayeux|jvm|process|system|netty)_[a-zA-Z0-9_]+");

    @Test
    void everyMetricTheDashboardQueriesIsExported() throws Exception {
        Set<String> queried = new TreeSet<>();
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        for (JsonNode expr : dashboard.findValues("expr")) {
            Matcher matcher = METRIC.matcher(expr.asText());
            while (matcher.find()) {
                queried.add(matcher.group());
            }
        }
        for (JsonNode query : dashboard.findValues("query")) {
            Matcher matcher = METRIC.matcher(query.asText());
            while (matcher.find()) {
                queried.add(matcher.group());
            }
        }
        assertTrue(queried.size() >= 20, () -> "the dashboard's queries: " + queried);

        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Set<String> exported = new TreeSet<>();
        try (NettyBayeuxServer server = NettyBayeuxServer.builder().host("127.0.0.1").port(0).build();
             BayeuxMetrics metrics = BayeuxMetrics.bind(server, registry)) {
            server.start();
            ClientConfig config = ClientConfig.builder().build();
            BayeuxClient client = new BayeuxClient(server.uri().toString(), config, new WebSocketTransport(config));
            client.handshake();
            assertTrue(client.waitFor(Duration.ofSeconds(10), BayeuxClient.State.CONNECTED));
            client.disconnect();
            assertTrue(client.waitFor(Duration.ofSeconds(10), BayeuxClient.State.DISCONNECTED));
            for (PrometheusParser.Family family : PrometheusParser.parse(registry.scrape(), "text").values()) {
                family.samples().forEach(sample -> exported.add(sample.name()));
            }
        }
        Set<String> missing = new TreeSet<>(queried);
        missing.removeAll(exported);
        assertEquals(Set.of(), missing, "queried by the dashboard, not exported");
    }
}
