package io.bayeux.cluster.redis;

import io.bayeux.client.BayeuxClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.bayeux.cluster.redis.RedisTesting.await;
import static io.bayeux.cluster.redis.RedisTesting.node;
import static io.bayeux.cluster.redis.RedisTesting.publish;
import static io.bayeux.cluster.redis.RedisTesting.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Redis cluster's core on a real {@code valkey-server} (Debian's package) instead of
 * redis-server: channels observed across two nodes (once each, in order, over both client
 * transports) and presence across them (associations, messages to users, a user leaving).
 */
class ValkeyIT {
    @RegisterExtension
    final RedisFixture fixture = RedisFixture.withValkey();

    @Test
    void theServerIsValkey() throws Exception {
        String version = fixture.redis().info("valkey_version");
        assertNotNull(version, "not a Valkey server: " + fixture.redis().command("INFO server"));
        assertTrue(Integer.parseInt(version.substring(0, version.indexOf('.'))) >= 7, version);
    }

    @Test
    void channelsAcrossTwoNodesOnceEachInOrderOverBothTransports() throws Exception {
        RedisTesting.Node a = fixture.closing(node(fixture.redis(), "/chat/**"));
        RedisTesting.Node b = fixture.closing(node(fixture.redis(), "/chat/**"));
        List<Object> onA = new CopyOnWriteArrayList<>();
        List<Object> onB = new CopyOnWriteArrayList<>();
        BayeuxClient clientA = fixture.connected(a.url(), "websocket");
        BayeuxClient clientB = fixture.connected(b.url(), "long-polling");
        assertTrue(subscribe(clientA, "/chat/room", (ch, m) -> onA.add(m.getDataAsMap().get("n"))).isSuccessful());
        assertTrue(subscribe(clientB, "/chat/room", (ch, m) -> onB.add(m.getDataAsMap().get("n"))).isSuccessful());
        await("A subscribed in Valkey", () -> a.cluster().isSubscribed("/chat/room"));
        await("B subscribed in Valkey", () -> b.cluster().isSubscribed("/chat/room"));

        BayeuxClient publisherA = fixture.connected(a.url(), "long-polling");
        BayeuxClient publisherB = fixture.connected(b.url(), "websocket");
        int count = 100;
        List<Object> expected = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            publisherA.getChannel("/chat/room").publish(Map.of("n", i));
            expected.add(i);
        }
        assertTrue(publish(publisherA, "/chat/room", Map.of("n", count)).isSuccessful());
        expected.add(count);
        // From B, after A's: once it arrived on both nodes, nothing of A's can still be on its way.
        await("A's messages on A", () -> onA.contains(count));
        await("A's messages on B", () -> onB.contains(count));
        assertTrue(publish(publisherB, "/chat/room", Map.of("n", -1)).isSuccessful());
        expected.add(-1);
        await("the marker on A", () -> onA.contains(-1));
        await("the marker on B", () -> onB.contains(-1));
        assertEquals(expected, onA, "A: once each, in order");
        assertEquals(expected, onB, "B: once each, in order");
        // Each node counts a message once Valkey answered its PUBLISH, on Lettuce's thread: that can
        // come after Valkey pushed the message to the other node and on to its clients.
        await("A's publishes answered", () -> a.cluster().getPublished() + a.cluster().getDropped() >= count + 1);
        await("B's publish answered", () -> b.cluster().getPublished() + b.cluster().getDropped() >= 1);
        assertEquals(count + 1, a.cluster().getPublished(), "each of A's messages crossed Valkey once");
        assertEquals(1, b.cluster().getPublished());
        assertEquals(0, a.cluster().getDropped() + b.cluster().getDropped());
    }

    @Test
    void presenceAcrossTwoNodes() throws Exception {
        RedisTesting.Node a = fixture.closing(node(fixture.redis()));
        RedisTesting.Node b = fixture.closing(node(fixture.redis()));
        RedisSeti setiA = fixture.seti(a, Duration.ofSeconds(3));
        RedisSeti setiB = fixture.seti(b, Duration.ofSeconds(3));
        List<String> eventsOnB = new CopyOnWriteArrayList<>();
        setiB.addPresenceListener(new RedisSeti.PresenceListener() {
            @Override
            public void presenceAdded(Event event) {
                eventsOnB.add("+" + event.userId() + "@" + event.node());
            }

            @Override
            public void presenceRemoved(Event event) {
                eventsOnB.add("-" + event.userId() + "@" + event.node());
            }
        });
        AliceAndBob users = AliceAndBob.associate(fixture, a, setiA, b, setiB);
        List<Object> toAlice = users.toAlice();
        List<Object> toBob = users.toBob();

        assertEquals(Set.of("alice", "bob"), setiA.getUserIds());
        assertEquals(Set.of(setiA.getNode()), setiB.getNodes("alice"));
        assertEquals(Set.of("+bob@" + setiB.getNode(), "+alice@" + setiA.getNode()), Set.copyOf(eventsOnB));
        assertEquals(Set.of("alice"), Set.of(fixture.redis().command("SMEMBERS bayeux:presence:" + setiA.getNode()).split("\r\n")[2]),
                "A's users in Valkey, under its node id");

        setiB.sendMessage("alice", "/private", Map.of("text", "hi alice"));
        setiA.sendMessage("bob", "/private", Map.of("text", "hi bob"));
        await("alice's message", () -> toAlice.contains("hi alice"));
        await("bob's message", () -> toBob.contains("hi bob"));

        users.alice().disconnect();
        await("alice gone from B", () -> !setiB.isPresent("alice"));
        await("the removal event", () -> eventsOnB.contains("-alice@" + setiA.getNode()));
        assertEquals(Set.of("bob"), setiB.getUserIds());
        assertEquals(List.of("hi alice"), toAlice);
        assertEquals(List.of("hi bob"), toBob);
    }
}
