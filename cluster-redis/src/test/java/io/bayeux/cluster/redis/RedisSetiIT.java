package io.bayeux.cluster.redis;

import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.ServerSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
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

    /** As Seti's: a node that stops tells its own listeners that every user it knew of is gone, its own and the others'. */
    @Test
    void aStoppingNodeTellsItsListenersThatEveryUserItKnewIsGone() throws Exception {
        RedisTesting.Node a = fixture.closing(node(fixture.redis()));
        RedisTesting.Node b = fixture.closing(node(fixture.redis()));
        RedisSeti setiA = fixture.seti(a, TTL);
        RedisSeti setiB = fixture.seti(b, TTL);
        AliceAndBob.associate(fixture, a, setiA, b, setiB);
        await("both seen from B", () -> setiB.getUserIds().equals(Set.of("alice", "bob")));
        List<String> removedOnB = new CopyOnWriteArrayList<>();
        setiB.addPresenceListener(new RedisSeti.PresenceListener() {
            @Override
            public void presenceRemoved(Event event) {
                removedOnB.add(event.userId() + (event.local() ? "@local" : "@" + event.node()));
            }
        });

        setiB.stop();

        assertEquals(Set.of("bob@local", "alice@" + setiA.getId()), Set.copyOf(removedOnB), "told on B");
        assertEquals(2, removedOnB.size(), "once each: " + removedOnB);
        assertEquals(Set.of(), setiB.getUserIds());
        assertFalse(setiB.isAssociated("bob"));
        // And A hears that bob left with B.
        await("bob gone from A", () -> !setiA.isPresent("bob"));
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
    /**
     * A user associated on one thread and disassociated on another while the first is still on
     * its way out of associate: Redis gets the arrival and the departure in the order they were
     * made, so the node's set ends without the user (it kept alice, until a heartbeat repaired
     * it, when the announcements were made after the lock).
     */
    @Test
    void anAssociationAndItsEndOnTwoThreadsReachRedisInTheOrderTheyWereMade() throws Exception {
        RedisTesting.Node a = fixture.closing(node(fixture.redis()));
        // Heartbeats 10 s apart: none repairs the set during the test.
        RedisSeti setiA = fixture.seti(a, Duration.ofSeconds(30));
        LocalSession local = a.server().bayeux().newLocalSession("alice");
        local.handshake();
        ServerSession real = local.getServerSession();
        CountDownLatch inAssociate = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // Holds associate's thread where it adds its listener to the session: after the table
        // changed, on its way to announcing the arrival.
        ServerSession held = (ServerSession) Proxy.newProxyInstance(ServerSession.class.getClassLoader(), new Class<?>[] {ServerSession.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("addListener") && inAssociate.getCount() > 0) {
                        inAssociate.countDown();
                        release.await(10, TimeUnit.SECONDS);
                    }
                    if (method.getName().equals("equals")) {
                        return proxy == args[0];
                    }
                    if (method.getName().equals("hashCode")) {
                        return System.identityHashCode(proxy);
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException x) {
                        throw x.getCause();
                    }
                });
        Thread associating = new Thread(() -> setiA.associate("alice", held));
        associating.start();
        assertTrue(inAssociate.await(10, TimeUnit.SECONDS), "associate is under way");
        assertTrue(setiA.disassociate("alice", held));
        release.countDown();
        associating.join(TimeUnit.SECONDS.toMillis(10));
        // A later announcement of the node, on the same Redis connection: once it is in the set,
        // alice's two are done.
        LocalSession zed = a.server().bayeux().newLocalSession("zed");
        zed.handshake();
        setiA.associate("zed", zed.getServerSession());
        String key = "bayeux:presence:" + setiA.getId();
        await("zed in Redis", () -> isMember(key, "zed"));
        assertFalse(isMember(key, "alice"), "alice left after she arrived");
        assertFalse(setiA.isAssociated("alice"));
    }

    private boolean isMember(String key, String member) {
        try {
            return fixture.redis().command("SISMEMBER " + key + " " + member).startsWith(":1");
        } catch (java.io.IOException x) {
            throw new java.io.UncheckedIOException(x);
        }
    }
}
