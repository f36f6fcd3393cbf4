package io.bayeux.cluster.redis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.bayeux.cluster.redis.RedisTesting.await;
import static io.bayeux.cluster.redis.RedisTesting.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Presence over a real redis-server: Seti's API, heartbeats and TTL. */
class RedisSetiIT {
    @RegisterExtension
    final RedisFixture fixture = RedisFixture.withRedis();
    private static final Duration TTL = Duration.ofSeconds(2);

    @Test
    void presenceAndMessagesAcrossNodesOverBothTransports() throws Exception {
        RedisTesting.Node a = fixture.closing(node(fixture.redis()));
        RedisTesting.Node b = fixture.closing(node(fixture.redis()));
        RedisSeti setiA = fixture.seti(a, TTL);
        RedisSeti setiB = fixture.seti(b, TTL);
        List<String> eventsOnB = new CopyOnWriteArrayList<>();
        setiB.addPresenceListener(new RedisSeti.PresenceListener() {
            @Override
            public void presenceAdded(Event event) {
                eventsOnB.add("+" + event.userId() + (event.local() ? "@local" : "@" + event.node()));
            }

            @Override
            public void presenceRemoved(Event event) {
                eventsOnB.add("-" + event.userId() + (event.local() ? "@local" : "@" + event.node()));
            }
        });

        AliceAndBob users = AliceAndBob.associate(fixture, a, setiA, b, setiB);
        List<Object> toAlice = users.toAlice();
        List<Object> toBob = users.toBob();

        assertEquals(Set.of("alice", "bob"), setiA.getUserIds());
        assertEquals(Set.of("alice", "bob"), setiB.getUserIds());
        assertEquals(Set.of(setiA.getId()), setiB.getNodeIds("alice"));
        assertTrue(setiA.isAssociated("alice"));
        assertFalse(setiB.isAssociated("alice"));
        assertEquals(Set.of("+bob@local", "+alice@" + setiA.getId()), Set.copyOf(eventsOnB));
        assertEquals(2, eventsOnB.size(), "one event each: " + eventsOnB);

        setiB.sendMessage("alice", "/private", Map.of("text", "hi alice"));
        setiA.sendMessage(List.of("bob", "alice"), "/private", Map.of("text", "hi both"));
        await("alice's messages", () -> toAlice.size() >= 2);
        await("bob's message", () -> toBob.size() >= 1);
        // A marker after: nothing more can still be on its way.
        setiB.sendMessage("alice", "/private", Map.of("text", "end"));
        await("the marker", () -> toAlice.contains("end"));
        // Once each; in order per sender (B's two), A's local delivery anywhere among them.
        assertEquals(Set.of("hi alice", "hi both", "end"), Set.copyOf(toAlice));
        assertEquals(3, toAlice.size(), toAlice.toString());
        assertTrue(toAlice.indexOf("hi alice") < toAlice.indexOf("end"), toAlice.toString());
        assertEquals(List.of("hi both"), toBob);

        // The session ends: alice leaves everywhere.
        users.alice().disconnect();
        await("alice gone from B", () -> !setiB.isPresent("alice"));
        assertEquals(Set.of("bob"), setiA.getUserIds());
        await("the removal event", () -> eventsOnB.contains("-alice@" + setiA.getId()));
    }

    @Test
    void aSilentNodesUsersExpireWithItsHeartbeat() throws Exception {
        RedisTesting.Node b = fixture.closing(node(fixture.redis()));
        RedisSeti setiB = fixture.seti(b, TTL);
        List<String> removed = new CopyOnWriteArrayList<>();
        setiB.addPresenceListener(new RedisSeti.PresenceListener() {
            @Override
            public void presenceRemoved(Event event) {
                removed.add(event.userId() + "@" + event.node());
            }
        });
        // A node that published carol then died without a word: its set lives 1.5 s more.
        assertTrue(fixture.redis().command("SADD bayeux:presence:ghost carol").startsWith(":1"));
        assertTrue(fixture.redis().command("PEXPIRE bayeux:presence:ghost 1500").startsWith(":1"));
        await("carol seen by a heartbeat", () -> setiB.isPresent("carol"));
        assertEquals(Set.of("ghost"), setiB.getNodeIds("carol"));
        long seen = System.nanoTime();
        await("carol expired", () -> !setiB.isPresent("carol"));
        long tookMs = (System.nanoTime() - seen) / 1_000_000;
        // The listener hears of it after carol is gone from the view, on the node's own thread.
        await("the removal event", () -> !removed.isEmpty());
        assertEquals(List.of("carol@ghost"), removed);
        assertTrue(tookMs < 1500 + 2000 + 5000, "within the TTL and a heartbeat (with slack): " + tookMs + " ms");
    }

    /**
     * A user of another node seen by a heartbeat, then announced gone on the presence channel
     * while the heartbeat's thread is still telling the listeners of its arrival: they are told
     * of the arrival, then of the removal, never the other way round (a tally of the users would
     * keep one that is gone).
     */
    @Test
    void aUserGoneWhileItsArrivalIsBeingToldIsToldAsRemovedAfterwards() throws Exception {
        RedisTesting.Node b = fixture.closing(node(fixture.redis()));
        RedisSeti setiB = fixture.seti(b, TTL);
        List<String> told = new CopyOnWriteArrayList<>();
        CountDownLatch arrivalBeingTold = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        setiB.addPresenceListener(new RedisSeti.PresenceListener() {
            @Override
            public void presenceAdded(Event event) {
                arrivalBeingTold.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException x) {
                    Thread.currentThread().interrupt();
                }
                told.add("+" + event.userId() + "@" + event.node());
            }

            @Override
            public void presenceRemoved(Event event) {
                told.add("-" + event.userId() + "@" + event.node());
            }
        });
        assertTrue(fixture.redis().command("SADD bayeux:presence:ghost carol").startsWith(":1"));
        assertTrue(arrivalBeingTold.await(10, TimeUnit.SECONDS), "carol's arrival is being told");
        // The other node's removal, as it announces it: its set, then the presence channel.
        assertTrue(fixture.redis().command("SREM bayeux:presence:ghost carol").startsWith(":1"));
        String published = fixture.redis().command("PUBLISH bayeux:presence '{\"node\":\"ghost\",\"userId\":\"carol\",\"present\":false}'");
        assertTrue(published.startsWith(":") && !published.startsWith(":0"), "heard by B: " + published);
        await("carol removed", () -> !setiB.isPresent("carol"));
        release.countDown();
        await("both told", () -> told.size() >= 2);
        assertEquals(List.of("+carol@ghost", "-carol@ghost"), told);
    }
}
