package io.bayeux.examples;

import io.bayeux.cluster.redis.RedisNode;
import io.bayeux.cluster.redis.RedisProcess;
import io.bayeux.metrics.BayeuxMetrics;
import io.bayeux.oort.OortNode;
import io.bayeux.testing.Await;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The demo's metrics and health probes, as it serves them by default, on its own port. */
class DemoMetricsIT {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** What each test started, closed in the reverse order. */
    private final List<AutoCloseable> started = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        Collections.reverse(started);
        for (AutoCloseable each : started) {
            each.close();
        }
        http.close();
    }

    private HttpResponse<String> get(URI server, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(server.resolve(path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The value of the first sample of {@code family} in a scrape of {@code server}, or -1 when it has none. */
    private double sample(URI server, String family) throws Exception {
        Matcher line = Pattern.compile("(?m)^" + family + "(\\{[^}]*})? (\\S+)$").matcher(get(server, "/metrics").body());
        return line.find() ? Double.parseDouble(line.group(2)) : -1;
    }

    @Test
    void theDemoServesItsMetricsAndHealthOnItsOwnPort() throws Exception {
        DemoMetrics metrics = new DemoMetrics();
        NettyBayeuxServer.Builder builder = DemoServer.configure(NettyBayeuxServer.builder().port(0));
        metrics.addTo(builder);
        try (NettyBayeuxServer server = builder.build().start();
             BayeuxMetrics bound = metrics.bind(server)) {
            HttpResponse<String> scrape = get(server.uri(), "/metrics");
            assertEquals(200, scrape.statusCode());
            assertTrue(scrape.body().contains("# TYPE bayeux_sessions gauge"), "the server's meters are scraped");
            for (String probe : new String[] {"/health/live", "/health/ready"}) {
                HttpResponse<String> health = get(server.uri(), probe);
                assertEquals(200, health.statusCode(), probe);
                assertTrue(health.body().startsWith("{\"status\":\"UP\""), health.body());
            }
        }
    }

    private OortNode oortNode(String... peers) {
        DemoCluster cluster = new DemoCluster();
        cluster.set("--oort-secret", "demo secret");
        cluster.set("--oort-failure-timeout", "2000");
        if (peers.length > 0) {
            cluster.set("--oort-peers", String.join(",", peers));
        }
        DemoMetrics metrics = new DemoMetrics("oort");
        NettyBayeuxServer.Builder builder = DemoServer.configure(NettyBayeuxServer.builder().port(0));
        metrics.addTo(builder);
        OortNode node = cluster.start(builder);
        started.add(node::stop);
        started.add(metrics.bind(node.server()));
        metrics.bind(node, peers.length > 0);
        started.add(metrics::closeCluster);
        return node;
    }

    @Test
    void anOortNodeTellsItsLinksAndNodesAndIsReadyWhileLinkedToItsPeers() throws Exception {
        OortNode first = oortNode();
        OortNode second = oortNode(first.oort().getURL());
        URI a = first.server().uri();
        URI b = second.server().uri();

        Await.until(WAIT, () -> ask(() -> sample(a, "bayeux_oort_links_up") == 1 && sample(b, "bayeux_oort_links_up") == 1),
                () -> "both nodes linked, as their meters say");
        assertEquals(0, sample(a, "bayeux_presence_users"), "Seti's meters are scraped: no user yet");
        HttpResponse<String> ready = get(b, "/health/ready");
        assertEquals(200, ready.statusCode(), ready.body());
        assertTrue(ready.body().contains("\"oort\""), "the Oort check is reported: " + ready.body());

        first.stop();
        Await.until(WAIT, () -> ask(() -> get(b, "/health/ready").statusCode() == 503), () -> "the node with a peer unready once its link is lost");
        assertEquals(0, sample(b, "bayeux_oort_links_up"));
    }

    @Test
    void aRedisNodeTellsItsEngineAndIsReadyWhileItReachesRedis() throws Exception {
        RedisProcess redis = RedisProcess.start();
        started.add(redis);
        DemoRedis engine = new DemoRedis();
        engine.set("--engine", redis.uri());
        DemoMetrics metrics = new DemoMetrics("redis");
        NettyBayeuxServer.Builder builder = DemoServer.configure(NettyBayeuxServer.builder().host("127.0.0.1").port(0));
        metrics.addTo(builder);
        RedisNode node = engine.start(builder);
        started.add(node::stop);
        started.add(metrics.bind(node.server()));
        metrics.bind(node);
        started.add(metrics::closeCluster);
        URI uri = node.server().uri();

        Await.until(WAIT, () -> ask(() -> sample(uri, "bayeux_redis_connected") == 1), () -> "connected to Redis, as the meter says");
        Await.until(WAIT, () -> ask(() -> get(uri, "/health/ready").statusCode() == 200), () -> "ready while Redis is reachable");
        assertTrue(get(uri, "/health/ready").body().contains("\"redis\""));
        assertEquals(0, sample(uri, "bayeux_presence_users"), "the presence's meters are scraped: no user yet");

        redis.kill();
        Await.until(WAIT, () -> ask(() -> get(uri, "/health/ready").statusCode() == 503), () -> "unready once Redis is gone");
        assertEquals(0, sample(uri, "bayeux_redis_connected"));
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    private static boolean ask(Check check) {
        try {
            return check.holds();
        } catch (Exception x) {
            throw new AssertionError(x);
        }
    }
}
