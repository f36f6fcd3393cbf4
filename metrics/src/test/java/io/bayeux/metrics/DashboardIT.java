package io.bayeux.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.transport.WebSocketTransport;
import io.bayeux.cluster.redis.RedisCluster;
import io.bayeux.cluster.redis.RedisConfig;
import io.bayeux.oort.OortConfig;
import io.bayeux.oort.OortNode;
import io.bayeux.testing.Await;
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

/**
 * Every series the Grafana dashboard of {@code docs/grafana} queries is one that servers with
 * their metrics bound export: a node of a two-node Oort cluster with its Seti, after a client's
 * visit and the other node's lag pings, and a node of a Redis cluster (its meters exist whether
 * Redis is reachable or not).
 */
class DashboardIT {
    private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "bayeux-dashboard.json");
    /** The metric names in a PromQL expression: the exported prefixes (functions, labels and keywords have none of them). */
    private static final Pattern METRIC = Pattern.compile("\\b(?:bayeux|jvm|process|system|netty)_[a-zA-Z0-9_]+");
    private static final Duration WAIT = Duration.ofSeconds(15);

    private static Set<String> queried() throws Exception {
        Set<String> queried = new TreeSet<>();
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        for (String field : new String[] {"expr", "query"}) {
            for (JsonNode expression : dashboard.findValues(field)) {
                Matcher matcher = METRIC.matcher(expression.asText());
                while (matcher.find()) {
                    queried.add(matcher.group());
                }
            }
        }
        return queried;
    }

    private static Set<String> exported(PrometheusMeterRegistry registry) {
        Set<String> exported = new TreeSet<>();
        try {
            for (PrometheusParser.Family family : PrometheusParser.parse(registry.scrape(), "text").values()) {
                family.samples().forEach(sample -> exported.add(sample.name()));
            }
        } catch (Exception x) {
            throw new AssertionError(x);
        }
        return exported;
    }

    private static OortNode oortNode(String... peers) {
        OortConfig.Builder config = OortConfig.builder().secret("dashboard-secret").maxBackoff(Duration.ofMillis(500));
        for (String peer : peers) {
            config.peer(peer);
        }
        return OortNode.start(NettyBayeuxServer.builder().host("127.0.0.1").port(0), config.build());
    }

    private static void visit(NettyBayeuxServer server) throws InterruptedException {
        ClientConfig config = ClientConfig.builder().build();
        BayeuxClient client = new BayeuxClient(server.uri().toString(), config, new WebSocketTransport(config));
        client.handshake();
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED));
        client.disconnect();
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.DISCONNECTED));
    }

    @Test
    void everyMetricTheDashboardQueriesIsExported() throws Exception {
        Set<String> queried = queried();
        assertTrue(queried.size() >= 40, () -> "the dashboard's queries: " + queried);
        Set<String> exported = new TreeSet<>();

        PrometheusMeterRegistry registryA = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        PrometheusMeterRegistry registryB = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (OortNode a = oortNode(); OortNode b = oortNode(a.oort().getURL());
             OortMetrics pingsOfA = OortMetrics.bind(a.oort(), registryA);
             BayeuxMetrics metrics = BayeuxMetrics.bind(b.server(), registryB);
             OortMetrics oort = OortMetrics.bind(b.oort(), registryB);
             PresenceMetrics presence = PresenceMetrics.bind(b.seti(), registryB)) {
            visit(b.server());
            // B's lag histogram of A exists once A's first ping came over the link.
            Await.until(WAIT, () -> exported(registryB).contains("bayeux_oort_lag_seconds_bucket"), () -> "B measured A's lag");
            exported.addAll(exported(registryB));
        }

        PrometheusMeterRegistry registryRedis = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (NettyBayeuxServer server = NettyBayeuxServer.builder().host("127.0.0.1").port(0).build()) {
            RedisCluster cluster = new RedisCluster(server.bayeux(), RedisConfig.builder().uri("redis://127.0.0.1:1").build());
            try (RedisMetrics redis = RedisMetrics.bind(cluster, registryRedis)) {
                exported.addAll(exported(registryRedis));
            }
        }

        Set<String> missing = new TreeSet<>(queried);
        missing.removeAll(exported);
        assertEquals(Set.of(), missing, "queried by the dashboard, not exported");
    }
}
