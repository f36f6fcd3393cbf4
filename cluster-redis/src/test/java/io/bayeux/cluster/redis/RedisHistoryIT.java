package io.bayeux.cluster.redis;

import io.bayeux.api.Message;
import io.bayeux.api.Position;
import io.bayeux.api.client.ClientSessionChannel;
import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ext.RecoveryExtension;
import io.bayeux.server.internal.BayeuxServerImpl;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static io.bayeux.cluster.redis.RedisTesting.await;
import static io.bayeux.cluster.redis.RedisTesting.node;
import static io.bayeux.cluster.redis.RedisTesting.publish;
import static io.bayeux.cluster.redis.RedisTesting.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Channel history kept in Redis, two nodes in one JVM on a real redis-server: positions are
 * Redis', so a client that comes back on the other node recovers there exactly what it missed,
 * and a flushed Redis is another epoch.
 */
class RedisHistoryIT {
    private static final String ROOM = "/chat/room";
    private static final HistoryPolicy POLICY = HistoryPolicy.of(100, Duration.ofMinutes(5));
    @RegisterExtension
    final RedisFixture fixture = RedisFixture.withRedis();

    private RedisTesting.Node historyNode() {
        return historyNode(POLICY);
    }

    private RedisTesting.Node historyNode(HistoryPolicy policy) {
        RedisTesting.Node node = fixture.closing(node(fixture.redis(), "/chat/**", "/event/**"));
        node.server().bayeux().createChannelIfAbsent("/chat/**", channel -> channel.setHistory(policy));
        node.server().bayeux().createChannelIfAbsent("/event/**", channel -> channel.setHistory(policy.withReplayIds()));
        return node;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void aClientThatComesBackOnAnotherNodeRecoversThereEverythingItMissed(String transport) throws Exception {
        RedisTesting.Node a = historyNode();
        RedisTesting.Node b = historyNode();
        BayeuxClient publisher = fixture.connected(b.url(), "websocket");

        RecoveryExtension first = new RecoveryExtension();
        BayeuxClient onA = fixture.connected(a.url(), transport);
        onA.addExtension(first);
        List<Integer> received = new CopyOnWriteArrayList<>();
        assertTrue(subscribe(onA, ROOM, (channel, message) -> received.add(n(message))).isSuccessful());
        await("A subscribed in Redis", () -> a.cluster().isSubscribed(ROOM));
        for (int i = 0; i < 5; i++) {
            assertTrue(publish(publisher, ROOM, Map.of("n", i)).isSuccessful());
        }
        await("five on A", () -> received.size() == 5);
        Position last = first.positions().get(ROOM);
        assertNotNull(last, "the position of the last message, from Redis");
        onA.disconnect();
        assertTrue(onA.waitFor(RedisTesting.WAIT, BayeuxClient.State.DISCONNECTED));

        for (int i = 5; i < 15; i++) {
            assertTrue(publish(publisher, ROOM, Map.of("n", i)).isSuccessful());
        }
        RecoveryExtension second = new RecoveryExtension();
        second.setPosition(ROOM, last);
        BlockingQueue<RecoveryExtension.Outcome> outcomes = new LinkedBlockingQueue<>();
        second.addListener((channel, outcome) -> outcomes.add(outcome));
        BayeuxClient onB = fixture.connected(b.url(), transport);
        onB.addExtension(second);
        assertTrue(subscribe(onB, ROOM, (channel, message) -> received.add(n(message))).isSuccessful());
        assertEquals(new RecoveryExtension.Outcome(true, 10, null), outcomes.poll(10, TimeUnit.SECONDS));
        await("fifteen in all", () -> received.size() >= 15);
        assertTrue(publish(publisher, ROOM, Map.of("n", 15)).isSuccessful());
        await("the live one", () -> received.size() >= 16);
        assertEquals(IntStream.range(0, 16).boxed().toList(), List.copyOf(received), "once each, in order, across the two nodes");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void publishesOnOneNodeRacingARecoveryOnTheOtherAreNeitherLostNorDoubled(String transport) throws Exception {
        // Deep enough for everything published before the client subscribes.
        HistoryPolicy deep = HistoryPolicy.of(1_000, Duration.ofMinutes(5));
        RedisTesting.Node a = historyNode(deep);
        RedisTesting.Node b = historyNode(deep);
        BayeuxClient publisher = fixture.connected(a.url(), "websocket");
        // Where the client stands: the position of a first message, as a subscriber on B got it.
        RecoveryExtension probe = new RecoveryExtension();
        BayeuxClient prober = fixture.connected(b.url(), "websocket");
        prober.addExtension(probe);
        List<Integer> probed = new CopyOnWriteArrayList<>();
        assertTrue(subscribe(prober, ROOM, (channel, message) -> probed.add(n(message))).isSuccessful());
        await("B subscribed in Redis", () -> b.cluster().isSubscribed(ROOM));
        assertTrue(publish(publisher, ROOM, Map.of("n", -1)).isSuccessful());
        await("the first message on B", () -> probed.contains(-1));
        Position start = probe.positions().get(ROOM);
        assertNotNull(start);

        int count = 500;
        Thread publishing = Thread.ofPlatform().start(() -> {
            for (int i = 0; i < count; i++) {
                publisher.getChannel(ROOM).publish(Map.of("n", i));
            }
        });
        RecoveryExtension recovery = new RecoveryExtension();
        recovery.setPosition(ROOM, start);
        List<RecoveryExtension.Outcome> outcomes = new CopyOnWriteArrayList<>();
        recovery.addListener((channel, outcome) -> outcomes.add(outcome));
        BayeuxClient client = fixture.connected(b.url(), transport);
        client.addExtension(recovery);
        List<Integer> received = new CopyOnWriteArrayList<>();
        assertTrue(subscribe(client, ROOM, (channel, message) -> received.add(n(message))).isSuccessful());
        assertEquals(true, outcomes.get(0).recovered(), "recovered: " + outcomes);
        publishing.join(TimeUnit.SECONDS.toMillis(30));
        try {
            await("all " + count, () -> received.size() >= count);
        } catch (AssertionError x) {
            List<Integer> missing = IntStream.range(0, count).filter(i -> !received.contains(i)).boxed().toList();
            throw new AssertionError(x.getMessage() + "; received " + received.size() + ", missing " + missing + ", outcomes " + outcomes
                    + "; B could not deliver " + ((BayeuxServerImpl) b.server().bayeux()).histories().unrecoverable(), x);
        }
        assertTrue(publish(publisher, ROOM, Map.of("n", count)).isSuccessful());
        await("the marker", () -> received.contains(count));
        assertEquals(IntStream.rangeClosed(0, count).boxed().toList(), List.copyOf(received), "once each, in order");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void aRestartedRedisIsAnotherEpochAndTheClientIsToldItCannotRecover(String transport) throws Exception {
        RedisTesting.Node a = historyNode();
        BayeuxClient publisher = fixture.connected(a.url(), "websocket");
        assertTrue(publish(publisher, ROOM, Map.of("n", 0)).isSuccessful());
        RecoveryExtension probe = new RecoveryExtension();
        BayeuxClient prober = fixture.connected(a.url(), transport);
        prober.addExtension(probe);
        assertTrue(subscribe(prober, ROOM, (channel, message) -> { }).isSuccessful());
        Position before = probe.positions().get(ROOM);
        prober.disconnect();

        fixture.redis().kill();
        fixture.redis().restart();
        await("A back on Redis", () -> a.cluster().isConnected());
        RecoveryExtension recovery = new RecoveryExtension();
        recovery.setPosition(ROOM, before);
        BlockingQueue<RecoveryExtension.Outcome> outcomes = new LinkedBlockingQueue<>();
        recovery.addListener((channel, outcome) -> outcomes.add(outcome));
        BayeuxClient client = fixture.connected(a.url(), transport);
        client.addExtension(recovery);
        assertTrue(subscribe(client, ROOM, (channel, message) -> { }).isSuccessful());
        assertEquals(new RecoveryExtension.Outcome(false, 0, "epoch"), outcomes.poll(10, TimeUnit.SECONDS));
        assertNotEquals(before.epoch(), recovery.positions().get(ROOM).epoch());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void theReplayDialectReplaysOnOneNodeWhatWasPublishedOnTheOther(String transport) throws Exception {
        RedisTesting.Node a = historyNode();
        RedisTesting.Node b = historyNode();
        BayeuxClient publisher = fixture.connected(a.url(), "websocket");
        for (int i = 0; i < 3; i++) {
            assertTrue(publish(publisher, "/event/orders", Map.of("n", i)).isSuccessful());
        }
        BayeuxClient client = fixture.connected(b.url(), transport);
        List<Integer> received = new CopyOnWriteArrayList<>();
        List<Long> ids = new CopyOnWriteArrayList<>();
        BlockingQueue<Message> replies = new LinkedBlockingQueue<>();
        client.addExtension(new io.bayeux.api.client.ClientSession.Extension() {
            @Override
            public boolean sendMeta(io.bayeux.api.client.ClientSession session, Message.Mutable message) {
                if ("/meta/subscribe".equals(message.getChannel())) {
                    message.getExt(true).put("replay", Map.of("/event/orders", -2));
                }
                return true;
            }
        });
        client.getChannel("/event/orders").subscribe((ClientSessionChannel.MessageListener) (channel, message) -> {
            received.add(n(message));
            ids.add(((Number) ((Map<?, ?>) message.getDataAsMap().get("event")).get("replayId")).longValue());
        }, replies::add);
        Message reply = replies.poll(10, TimeUnit.SECONDS);
        assertNotNull(reply);
        assertTrue(reply.isSuccessful(), "subscribed: " + reply);
        await("the three retained", () -> received.size() >= 3);
        assertEquals(List.of(0, 1, 2), List.copyOf(received));
        assertTrue(ids.get(0) < ids.get(1) && ids.get(1) < ids.get(2), "replay ids grow: " + ids);
    }

    private static int n(Message message) {
        return ((Number) message.getDataAsMap().get("n")).intValue();
    }
}
