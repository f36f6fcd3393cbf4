package io.bayeux.load;

import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.cluster.redis.RedisConfig;
import io.bayeux.cluster.redis.RedisNode;
import io.bayeux.cluster.redis.RedisProcess;
import io.bayeux.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 1,000 clients with {@code --recover} on a node of a Redis cluster whose rooms keep their
 * history in Redis (a real {@code redis-server} of the test's own): while they publish, the node
 * is stopped and a new one started on the same port. Every client handshakes again with the new
 * node, subscribes again from where it was, and the history kept in Redis gives it what it
 * missed: nothing is lost, nothing doubled.
 */
class RedisRestartIT {
    private static final int CLIENTS = 1000;
    private static final int ROOMS_PER_CLIENT = 5;
    private static final Duration WAIT = Duration.ofSeconds(60);

    private RedisProcess redis;
    private RedisNode node;

    /**
     * A benchmark server and its Redis cluster (no presence), the cluster started before the
     * server takes connections. {@link RedisNode#stop()} stops the server first: a cluster
     * stopped under a running server would leave its rooms to the server's own memory, and the
     * messages published there meanwhile would carry positions of another history (another
     * epoch) than Redis'.
     */
    private static RedisNode startNode(int port, String redisUri, TestScenarios.ServerCount count) {
        BenchmarkServer.Settings settings = BenchmarkServer.Settings.defaults("127.0.0.1", port)
                .withHistory(HistoryPolicy.of(5000, Duration.ofMinutes(5)));
        return RedisNode.start(BenchmarkServer.builder(settings, count),
                RedisConfig.builder().uri(redisUri).channel(BenchmarkServer.ROOMS).presence(false).build());
    }

    @AfterEach
    void stopAll() throws Exception {
        try {
            if (node != null) {
                node.stop();
            }
        } finally {
            if (redis != null) {
                redis.close();
            }
        }
    }

    @Test
    @Timeout(150)
    void everyClientOfAReplacedNodeHandshakesAgainAndRecoversFromRedisNothingLostNothingDoubled() throws Exception {
        redis = RedisProcess.start();
        TestScenarios.ServerCount first = new TestScenarios.ServerCount();
        node = startNode(0, redis.uri(), first);
        int port = node.server().port();
        // 1,000 clients in 100 rooms, 5 each (50 per room); 200 messages/s (10,000 deliveries/s) for 320 batches of 5.
        Scenario scenario = new Scenario(List.of(node.server().uri()), Scenario.WEBSOCKET, CLIENTS, 100, ROOMS_PER_CLIENT, 1, 2000, 5,
                Duration.ofMillis(25), 300, 20, 50, true, false, Duration.ofSeconds(1), false, null, null, Duration.ofSeconds(60),
                Duration.ofSeconds(60), 0, null, true);
        ChatBenchmark benchmark = new ChatBenchmark(scenario, "redis restart", null, 2, TestScenarios.QUIET, false);
        CompletableFuture<RunResult> run = new CompletableFuture<>();
        Thread runner = Thread.ofPlatform().name("benchmark").start(() -> {
            try {
                run.complete(benchmark.run());
            } catch (Throwable x) {
                run.completeExceptionally(x);
            }
        });

        // A third of the messages published: the node goes, a new one comes on the same port.
        awaitPublished(first, 500, run);
        node.stop();
        node = startNode(port, redis.uri(), new TestScenarios.ServerCount());

        RunResult result = run.get(WAIT.toSeconds() * 2, TimeUnit.SECONDS);
        runner.join(TimeUnit.SECONDS.toMillis(10));
        Counts counts = result.counts();
        RunResult.Recovery recovery = result.recovery();
        assertNotNull(recovery);
        assertEquals(CLIENTS, result.connect().connected(), "every client is back");
        assertTrue(result.connect().rehandshakes() >= CLIENTS, "every client handshook again with the new node: " + result.connect());
        assertTrue(recovery.recovered() >= (long) CLIENTS * ROOMS_PER_CLIENT, "every subscription recovered: " + recovery);
        assertEquals(0, recovery.notRecovered(), recovery.toString());
        assertEquals(Map.of(), recovery.reasons());
        assertTrue(recovery.replayed() > 0, "what was missed came from Redis: " + recovery);
        assertEquals("complete", result.drain(), counts.toString());
        assertEquals(0, counts.lost(), counts.toString());
        assertEquals(0, counts.duplicated(), counts.toString());
        assertEquals(0, counts.unexpected(), counts.toString());
    }

    /** Waits until the node saw {@code n} messages published to the rooms, or fails (the run failing first says why). */
    private static void awaitPublished(TestScenarios.ServerCount count, long n, CompletableFuture<RunResult> run) throws Exception {
        Await.until(WAIT, () -> count.published.get() >= n || run.isDone(), () -> n + " messages published; " + count.published.get() + " were");
        if (count.published.get() < n) {
            run.get();
            throw new AssertionError("The run ended before " + n + " messages were published: " + count.published.get());
        }
    }
}
