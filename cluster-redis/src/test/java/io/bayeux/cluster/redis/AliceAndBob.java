package io.bayeux.cluster.redis;

import io.bayeux.api.server.ServerSession;
import io.bayeux.client.BayeuxClient;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.bayeux.cluster.redis.RedisTesting.await;
import static io.bayeux.cluster.redis.RedisTesting.subscribe;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The presence ITs' two users: alice on node A over WebSocket and bob on node B over
 * long-polling, each subscribed to {@code /private} (the {@code text} of what each receives
 * lands in {@link #toAlice} or {@link #toBob}), associated with its node's Seti, and known
 * to the other node's.
 */
record AliceAndBob(BayeuxClient alice, BayeuxClient bob, List<Object> toAlice, List<Object> toBob) {
    /** Connects, subscribes and associates both (the clients disconnect after the test) and waits until each node knows the other's user. */
    static AliceAndBob associate(RedisFixture fixture, RedisTesting.Node a, RedisSeti setiA, RedisTesting.Node b, RedisSeti setiB)
            throws InterruptedException {
        BayeuxClient alice = fixture.connected(a.url(), "websocket");
        BayeuxClient bob = fixture.connected(b.url(), "long-polling");
        List<Object> toAlice = new CopyOnWriteArrayList<>();
        List<Object> toBob = new CopyOnWriteArrayList<>();
        assertTrue(subscribe(alice, "/private", (ch, m) -> toAlice.add(m.getDataAsMap().get("text"))).isSuccessful());
        assertTrue(subscribe(bob, "/private", (ch, m) -> toBob.add(m.getDataAsMap().get("text"))).isSuccessful());
        ServerSession aliceSession = a.server().bayeux().getSession(alice.getId());
        ServerSession bobSession = b.server().bayeux().getSession(bob.getId());
        assertTrue(setiA.associate("alice", aliceSession));
        assertTrue(setiB.associate("bob", bobSession));

        await("alice known on B", () -> setiB.isPresent("alice"));
        await("bob known on A", () -> setiA.isPresent("bob"));
        return new AliceAndBob(alice, bob, toAlice, toBob);
    }
}
