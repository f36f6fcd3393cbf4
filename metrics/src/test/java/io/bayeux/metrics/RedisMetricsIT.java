package io.bayeux.metrics;

import io.bayeux.api.server.LocalSession;
import io.bayeux.cluster.redis.RedisCluster;
import io.bayeux.cluster.redis.RedisConfig;
import io.bayeux.cluster.redis.RedisProcess;
import io.bayeux.testing.Await;
import io.bayeux.transport.NettyBayeuxServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Redis engine's meters on two nodes over a real redis-server: the pub/sub lag of what one
 * node publishes and the other gets, then, Redis gone, the messages buffered and dropped.
 */
class RedisMetricsIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int BUFFER = 3;
    private static final int PUBLISHED = 5;

    private final List<AutoCloseable> closing = new ArrayList<>();
    private RedisProcess redis;

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    private RedisCluster node() {
        NettyBayeuxServer server = NettyBayeuxServer.builder().host("127.0.0.1").port(0).build().start();
        closing.add(server::stop);
        RedisCluster cluster = new RedisCluster(server.bayeux(),
                RedisConfig.builder().uri(redis.uri()).channels(List.of("/chat/**")).bufferSize(BUFFER)
                        .settleDelay(Duration.ofMillis(100)).build());
        cluster.start();
        closing.add(cluster::stop);
        return cluster;
    }

    private static Map<String, PrometheusParser.Family> scrape(PrometheusMeterRegistry registry) {
        try {
            return PrometheusParser.parse(registry.scrape(), "text");
        } catch (Exception x) {
            throw new AssertionError(x);
        }
    }

    private static double value(PrometheusMeterRegistry registry, String family, String type, String sample) {
        PrometheusParser.Family found = scrape(registry).get(family);
        assertEquals(type, found == null ? null : found.type(), family);
        return found.value(sample);
    }

    private static void signal(RedisProcess redis, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(redis.pid())).inheritIO().start();
        assertEquals(0, kill.waitFor(), "kill -" + signal);
    }

    private static LocalSession session(RedisCluster cluster, String name) {
        LocalSession session = cluster.getBayeuxServer().newLocalSession(name);
        session.handshake();
        return session;
    }

    @Test
    void lagBufferedAndDroppedMoveWithTrafficAndAnOutage() throws Exception {
        redis = RedisProcess.start();
        RedisCluster a = node();
        RedisCluster b = node();
        PrometheusMeterRegistry registryA = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        PrometheusMeterRegistry registryB = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        closing.add(RedisMetrics.bind(a, registryA));
        closing.add(RedisMetrics.bind(b, registryB));

        List<Object> onB = new CopyOnWriteArrayList<>();
        session(b, "subscriber").getChannel("/chat/room").subscribe((channel, message) -> onB.add(message.getData()));
        Await.until(WAIT, () -> b.isSubscribed("/chat/room"), () -> "B subscribed in Redis");
        LocalSession publisher = session(a, "publisher");
        // One at a time: until the settle delay after A connected, its messages wait in its small buffer.
        for (int i = 0; i < PUBLISHED; i++) {
            publisher.getChannel("/chat/room").publish("hello " + i);
            int sent = i + 1;
            Await.until(WAIT, () -> onB.size() == sent, () -> "B got A's messages: " + onB);
        }

        assertEquals(PUBLISHED, value(registryB, "bayeux_redis_lag_seconds", "histogram", "bayeux_redis_lag_seconds_count"), "one lag per message");
        assertTrue(scrape(registryB).get("bayeux_redis_lag_seconds").value("bayeux_redis_lag_seconds_bucket", "le", "10.0") == PUBLISHED,
                "under 10 s on one machine");
        assertEquals(PUBLISHED, value(registryB, "bayeux_redis_received", "counter", "bayeux_redis_received_total"));
        Await.until(WAIT, () -> value(registryA, "bayeux_redis_in_flight", "gauge", "bayeux_redis_in_flight") == 0,
                () -> "A's publishes answered");
        assertEquals(0, value(registryA, "bayeux_redis_buffered", "gauge", "bayeux_redis_buffered"));

        // Redis paused (SIGSTOP): what A publishes is sent and waits for Redis's answers, in flight.
        signal(redis, "STOP");
        try {
            for (int i = 0; i < 3; i++) {
                publisher.getChannel("/chat/room").publish("paused " + i);
            }
            Await.until(WAIT, () -> value(registryA, "bayeux_redis_in_flight", "gauge", "bayeux_redis_in_flight") == 3,
                    () -> "A's three publishes in flight");
        } finally {
            signal(redis, "CONT");
        }
        Await.until(WAIT, () -> value(registryA, "bayeux_redis_in_flight", "gauge", "bayeux_redis_in_flight") == 0,
                () -> "A's publishes answered once Redis went on");
        Await.until(WAIT, () -> onB.size() == PUBLISHED + 3, () -> "B got the three: " + onB);

        redis.close();
        redis = null;
        Await.until(WAIT, () -> !a.isConnected(), () -> "A told Redis is away");
        assertEquals(0, value(registryA, "bayeux_redis_connected", "gauge", "bayeux_redis_connected"));
        for (int i = 0; i < PUBLISHED; i++) {
            publisher.getChannel("/chat/room").publish("away " + i);
        }
        assertEquals(BUFFER, value(registryA, "bayeux_redis_buffered", "gauge", "bayeux_redis_buffered"), "the buffer full");
        assertEquals(PUBLISHED - BUFFER, value(registryA, "bayeux_redis_dropped", "counter", "bayeux_redis_dropped_total"), "the rest dropped");
    }
}
