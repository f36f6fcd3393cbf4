package io.bayeux.metrics;

import io.bayeux.api.server.LocalSession;
import io.bayeux.cluster.redis.RedisCluster;
import io.bayeux.cluster.redis.RedisConfig;
import io.bayeux.oort.OortConfig;
import io.bayeux.oort.OortNode;
import io.bayeux.server.spi.ReadinessCheck;
import io.bayeux.testing.Await;
import io.bayeux.transport.NettyBayeuxServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The clusters' meters and readiness: two Oort nodes over real sockets; a Redis node that cannot reach its Redis. */
class ClusterMetricsIT {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final String SECRET = "metrics-secret";

    private static OortNode node(String... peers) {
        OortConfig.Builder config = OortConfig.builder().secret(SECRET).failureTimeout(Duration.ofSeconds(3)).maxBackoff(Duration.ofMillis(500));
        for (String peer : peers) {
            config.peer(peer);
        }
        return OortNode.start(NettyBayeuxServer.builder().host("127.0.0.1").port(0), config.build());
    }

    private static double value(PrometheusMeterRegistry registry, String family, String sample) throws Exception {
        return PrometheusParser.parse(registry.scrape(), "text").get(family).value(sample);
    }

    private static double probe(PrometheusMeterRegistry registry, String family, String sample) {
        try {
            return value(registry, family, sample);
        } catch (Exception x) {
            throw new AssertionError(x);
        }
    }

    @Test
    void oortLinksAndPresenceAreMeteredAndMakeTheNodeReady() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (OortNode a = node(); OortNode b = node(a.oort().getURL());
             OortMetrics oort = OortMetrics.bind(b.oort(), registry);
             PresenceMetrics presence = PresenceMetrics.bind(b.seti(), registry)) {
            ReadinessCheck ready = OortMetrics.readiness(b.oort(), 1);
            Await.until(WAIT, () -> probe(registry, "bayeux_oort_links_up", "bayeux_oort_links_up") == 1, () -> "B linked with A");
            assertTrue(ready.check().ready(), () -> ready.check().toString());
            assertEquals("counter", PrometheusParser.parse(registry.scrape(), "text").get("bayeux_oort_dropped").type());

            LocalSession alice = a.server().bayeux().newLocalSession("alice");
            alice.handshake();
            assertTrue(a.seti().associate("alice", alice.getServerSession()));
            Await.until(WAIT, () -> probe(registry, "bayeux_presence_users", "bayeux_presence_users") == 1, () -> "B sees alice on A");
            assertEquals(0, value(registry, "bayeux_presence_users_local", "bayeux_presence_users_local"));
            assertEquals(1, value(registry, "bayeux_presence_nodes", "bayeux_presence_nodes"));

            a.close();
            Await.until(WAIT, () -> probe(registry, "bayeux_oort_links_lost", "bayeux_oort_links_lost_total") == 1, () -> "B lost A");
            assertEquals(0, value(registry, "bayeux_oort_links_up", "bayeux_oort_links_up"));
            ReadinessCheck.Result notReady = ready.check();
            assertFalse(notReady.ready());
            assertEquals("0 links up, 1 needed", notReady.detail());
            assertTrue(OortMetrics.readiness(b.oort(), 0).check().ready(), "a first node needs no link");
        }
    }

    private static double lagCount(PrometheusMeterRegistry registry, String node) {
        try {
            PrometheusParser.Family lag = PrometheusParser.parse(registry.scrape(), "text").get("bayeux_oort_lag_seconds");
            if (lag == null) {
                return 0;
            }
            assertEquals("histogram", lag.type());
            return lag.sum("bayeux_oort_lag_seconds_count", "node", node);
        } catch (Exception x) {
            throw new AssertionError(x);
        }
    }

    @Test
    void eachNodesLagIsMeasuredByItsPingsAndLeavesWithIt() throws Exception {
        PrometheusMeterRegistry registryA = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        PrometheusMeterRegistry registryB = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (OortNode a = node(); OortNode b = node(a.oort().getURL());
             OortMetrics metricsA = OortMetrics.bind(a.oort(), registryA);
             OortMetrics metricsB = OortMetrics.bind(b.oort(), registryB)) {
            String urlA = a.oort().getURL();
            String urlB = b.oort().getURL();
            // Pings every second: two each way, once the links are up.
            Await.until(WAIT, () -> lagCount(registryB, urlA) >= 2, () -> "B measured A's lag: " + registryB.scrape());
            Await.until(WAIT, () -> lagCount(registryA, urlB) >= 2, () -> "A measured B's lag");
            assertEquals(0, lagCount(registryA, urlA), "a node does not measure itself");
            double under = PrometheusParser.parse(registryB.scrape(), "text").get("bayeux_oort_lag_seconds")
                    .value("bayeux_oort_lag_seconds_bucket", "node", urlA, "le", "10.0");
            assertTrue(under >= 2, "on one machine, under 10 s: " + under);

            a.close();
            Await.until(WAIT, () -> probe(registryB, "bayeux_oort_links_lost", "bayeux_oort_links_lost_total") == 1, () -> "B lost A");
            assertEquals(0, lagCount(registryB, urlA), "A's lag left with it");
        }
    }

    @Test
    void aRedisNodeThatIsNotStartedIsNotReadyAndNotConnected() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (NettyBayeuxServer server = NettyBayeuxServer.builder().host("127.0.0.1").port(0).build()) {
            RedisCluster cluster = new RedisCluster(server.bayeux(), RedisConfig.builder().uri("redis://127.0.0.1:1").build());
            try (RedisMetrics metrics = RedisMetrics.bind(cluster, registry)) {
                Map<String, PrometheusParser.Family> families = PrometheusParser.parse(registry.scrape(), "text");
                assertEquals(0, families.get("bayeux_redis_connected").value("bayeux_redis_connected"));
                for (String counter : new String[] {"published", "received", "duplicates", "lost", "dropped"}) {
                    assertEquals("counter", families.get("bayeux_redis_" + counter).type(), counter);
                }
                ReadinessCheck.Result result = RedisMetrics.readiness(cluster).check();
                assertFalse(result.ready());
                assertEquals("the Redis cluster is not started", result.detail());
            }
        }
    }
}
