package io.bayeux.cluster.redis;

import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.client.BayeuxClient;
import io.bayeux.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static io.bayeux.cluster.redis.RedisTesting.await;
import static io.bayeux.cluster.redis.RedisTesting.publish;
import static io.bayeux.cluster.redis.RedisTesting.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two nodes on {@code redis-sentinel://}: one master, one replica and three Sentinels started
 * as processes on loopback, the master killed with {@code kill -9} while one node publishes.
 * After the failover both nodes are subscribed again, on the promoted replica, and traffic
 * flows; each message published reaches the other node at most once, in order, and every one
 * that did not is counted lost there; on a channel with a history in Redis, every one reaches it.
 * And a failover that leaves the old master running, as a replica of the new one: both nodes
 * follow the new master (a node left on the old one would publish where no other node listens).
 */
class RedisSentinelIT {
    private static final Logger LOGGER = LoggerFactory.getLogger(RedisSentinelIT.class);
    private static final String MASTER = "bayeux-master";

    @RegisterExtension
    final RedisFixture fixture = RedisFixture.withoutServer();

    @Test
    void nodesFollowTheMasterSentinelNamesWhenItIsKilledUnderLoad() throws Exception {
        Sentinels setup = startSentinels();
        RedisProcess master = setup.master();
        RedisProcess replica = setup.replica();
        List<RedisProcess> sentinels = setup.sentinels();
        String uri = setup.uri();
        RedisTesting.Node a = fixture.closing(node(uri));
        RedisTesting.Node b = fixture.closing(node(uri));
        List<Integer> onB = new CopyOnWriteArrayList<>();
        List<Integer> keptOnB = new CopyOnWriteArrayList<>();
        BayeuxClient subscriber = fixture.connected(b.url(), "websocket");
        assertTrue(subscribe(subscriber, "/chat/room", (ch, m) -> onB.add(((Number) m.getDataAsMap().get("n")).intValue())).isSuccessful());
        assertTrue(subscribe(subscriber, "/event/kept", (ch, m) -> keptOnB.add(((Number) m.getDataAsMap().get("n")).intValue())).isSuccessful());
        await("B subscribed on the master", () -> b.cluster().isSubscribed("/chat/room") && b.cluster().isSubscribed("/event/kept"));

        BayeuxClient publisher = fixture.connected(a.url(), "websocket");
        int total = 300;
        int killAt = 100;
        for (int n = 0; n < total; n++) {
            if (n == killAt) {
                // Both channels' last message before the kill through first: Redis replicates
                // asynchronously, so a write the master took but had not yet passed to its replica
                // would be lost with it, whatever the engine does.
                try {
                    await("the first messages on B", () -> onB.contains(killAt - 1) && keptOnB.contains(killAt - 1));
                } catch (AssertionError x) {
                    throw new AssertionError(x.getMessage() + " (B has " + onB.size() + " and " + keptOnB.size()
                            + "; the master's role: " + field(master, "replication", "role") + ")\nA Sentinel's log:\n"
                            + sentinels.get(0).log(), x);
                }
                master.kill();
            }
            // Each waits for A's reply, which never waits for Redis: a steady load through the switch.
            assertTrue(publish(publisher, "/chat/room", Map.of("n", n)).isSuccessful());
            assertTrue(publish(publisher, "/event/kept", Map.of("n", n)).isSuccessful());
        }
        await("the Sentinels to name the replica",
                () -> reply(sentinels.get(0), "SENTINEL get-master-addr-by-name " + MASTER).contains(String.valueOf(replica.port())));
        await("both nodes on Redis again", () -> a.cluster().isConnected() && b.cluster().isConnected());
        await("B subscribed again", () -> b.cluster().isSubscribed("/chat/room") && b.cluster().isSubscribed("/event/kept"));
        await("B's subscription on the new master", () -> reply(replica, "PUBSUB NUMSUB bayeux:/chat/room").contains(":1\r\n"));

        assertTrue(publish(publisher, "/chat/room", Map.of("n", total)).isSuccessful());
        assertTrue(publish(publisher, "/event/kept", Map.of("n", total)).isSuccessful());
        await("traffic through the new master", () -> onB.contains(total));
        await("the channel with a history, all of it", () -> keptOnB.contains(total));
        List<Integer> delivered = List.copyOf(onB);
        long lost = b.cluster().getLost();
        LOGGER.info("Sentinel failover under load: {} published, {} delivered on the other node, {} counted lost, {} second copies dropped",
                total + 1, delivered.size(), lost, b.cluster().getDuplicates());
        for (int i = 1; i < delivered.size(); i++) {
            assertTrue(delivered.get(i) > delivered.get(i - 1), "in order and once each: " + delivered);
        }
        assertEquals(total + 1, delivered.size() + lost, () -> "each message delivered or counted lost: " + delivered + ", lost " + lost);
        assertEquals(0, a.cluster().getDropped(), "none dropped by the origin: its buffer held them");
        // The history's messages wait in Lettuce's queue through the switch, then go through the new master's
        // history in order: every one reaches B, once.
        assertEquals(IntStream.rangeClosed(0, total).boxed().toList(), keptOnB, "the channel with a history: all, once each, in order");
    }

    @Test
    void nodesFollowAFailoverThatLeavesTheOldMasterRunningAsAReplica() throws Exception {
        Sentinels setup = startSentinels();
        RedisProcess master = setup.master();
        RedisProcess replica = setup.replica();
        List<RedisProcess> sentinels = setup.sentinels();
        String uri = setup.uri();
        RedisTesting.Node a = fixture.closing(node(uri));
        RedisTesting.Node b = fixture.closing(node(uri));
        List<Integer> onB = new CopyOnWriteArrayList<>();
        BayeuxClient subscriber = fixture.connected(b.url(), "websocket");
        assertTrue(subscribe(subscriber, "/chat/room", (ch, m) -> onB.add(((Number) m.getDataAsMap().get("n")).intValue())).isSuccessful());
        await("B subscribed", () -> b.cluster().isSubscribed("/chat/room"));
        BayeuxClient publisher = fixture.connected(a.url(), "websocket");
        assertTrue(publish(publisher, "/chat/room", Map.of("n", 0)).isSuccessful());
        await("the first message on B", () -> onB.contains(0));

        // What a Sentinel does when the master was unreachable for a while but comes back: the
        // replica is promoted and the old master, still running, is turned into its replica.
        // PUBLISH works on a replica too, so a node left on the old master would publish where
        // no other node listens.
        assertTrue(reply(sentinels.get(0), "SENTINEL FAILOVER " + MASTER).startsWith("+OK"), "the failover accepted");
        await("the Sentinels to name the replica",
                () -> reply(sentinels.get(0), "SENTINEL get-master-addr-by-name " + MASTER).contains(String.valueOf(replica.port())));
        await("the old master a replica", () -> "slave".equals(field(master, "replication", "role")));
        await("B's subscription on the new master", () -> reply(replica, "PUBSUB NUMSUB bayeux:/chat/room").contains(":1\r\n"));
        // A publishes at each poll (at most every 25 ms, for at most 30 s): once A follows the new
        // master, one of them reaches B.
        AtomicInteger next = new AtomicInteger(1);
        Await.until(Duration.ofSeconds(30), () -> {
            publisher.getChannel("/chat/room").publish(Map.of("n", next.getAndIncrement()));
            return onB.stream().anyMatch(n -> n > 0);
        }, () -> "a message published on A after the failover on B (" + next.get() + " tried; B has " + onB
                + "; subscribers of the room on the old master: " + reply(master, "PUBSUB NUMSUB bayeux:/chat/room") + ")");
    }

    @Test
    void aHistoryPublishALaterOneOfItsNodeOvertookIsCountedDroppedNotLostSilently() throws Exception {
        Sentinels setup = startSentinels();
        RedisTesting.Node a = fixture.closing(node(setup.uri()));
        BayeuxClient publisher = fixture.connected(a.url(), "websocket");
        assertTrue(publish(publisher, "/event/kept", Map.of("n", 0)).isSuccessful());
        String applied = "HGET bayeux:history:{/event/kept}:meta n:" + a.cluster().getNodeId();
        await("the first publish applied", () -> reply(setup.master(), applied).startsWith("$") && !reply(setup.master(), applied).startsWith("$-1"));
        // As if a later message of A's had reached the master first: the script refuses the next one as a second copy.
        assertTrue(reply(setup.master(), "HSET bayeux:history:{/event/kept}:meta n:" + a.cluster().getNodeId() + " 1000000000").startsWith(":"));
        assertEquals(0, a.cluster().getDropped());
        assertTrue(publish(publisher, "/event/kept", Map.of("n", 1)).isSuccessful());
        await("the refused publish counted dropped", () -> a.cluster().getDropped() == 1);
        assertTrue(reply(setup.master(), "XLEN bayeux:history:{/event/kept}:stream").startsWith(":1\r\n"), "the history has the first only");
    }

    /** A master, its replica in sync, three Sentinels that know both and each other, and the engine's URI for them. */
    private record Sentinels(RedisProcess master, RedisProcess replica, List<RedisProcess> sentinels, String uri) {
    }

    private Sentinels startSentinels() throws Exception {
        RedisProcess master = fixture.closing(RedisProcess.start());
        RedisProcess replica = fixture.closing(RedisProcess.replicaOf(master));
        await("the replica in sync", () -> "up".equals(field(replica, "replication", "master_link_status")));
        List<RedisProcess> sentinels = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            // Down after 1.5 s: short enough for a quick failover, long enough that a master slowed by a
            // busy machine is not failed over before the test means it (the nodes would then publish on two servers).
            sentinels.add(fixture.closing(RedisProcess.sentinel(master, MASTER, Duration.ofMillis(1500), Duration.ofSeconds(3))));
        }
        for (RedisProcess sentinel : sentinels) {
            // A Sentinel that knows no replica, or too few peers for the quorum, would not fail over.
            await("a Sentinel that knows the replica and the two other Sentinels",
                    () -> String.valueOf(field(sentinel, "sentinel", "master0")).contains("slaves=1,sentinels=3"));
        }
        String uri = sentinels.stream().map(s -> "127.0.0.1:" + s.port())
                .collect(Collectors.joining(",", "redis-sentinel://", "/" + MASTER));
        return new Sentinels(master, replica, sentinels, uri);
    }

    /** A node sharing /chat/** (no history) and /event/** (a history in Redis), reconnecting at least every 200 ms. */
    private static RedisTesting.Node node(String uri) {
        RedisTesting.Node node = RedisTesting.node(uri, c -> c.presence(false).maxReconnectDelay(Duration.ofMillis(200)), "/chat/**", "/event/**");
        node.server().bayeux().createChannelIfAbsent("/event/**", channel -> channel.setHistory(HistoryPolicy.of(1_000, Duration.ofMinutes(5))));
        return node;
    }

    private static String reply(RedisProcess server, String command) {
        try {
            return server.command(command);
        } catch (IOException x) {
            return "";
        }
    }

    private static String field(RedisProcess server, String section, String name) {
        try {
            return server.info(section, name);
        } catch (IOException x) {
            return null;
        }
    }
}
