package io.bayeux.cluster.redis;

import io.bayeux.client.BayeuxClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.bayeux.cluster.redis.RedisTesting.await;
import static io.bayeux.cluster.redis.RedisTesting.node;
import static io.bayeux.cluster.redis.RedisTesting.publish;
import static io.bayeux.cluster.redis.RedisTesting.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Redis killed and restarted on its port while nodes publish: local service goes on, nothing twice, losses counted. */
class RedisOutageIT {
    @RegisterExtension
    final RedisFixture fixture = RedisFixture.withRedis();

    @Test
    void redisKilledAndRestartedUnderLoad() throws Exception {
        outage(10_000);
        // The buffer held what was published during the outage: A dropped nothing. (B may still
        // miss some if A's buffer reached Redis before B subscribed again; counted in B's lost.)
        assertEquals(0, dropped, "A dropped nothing");
    }

    @Test
    void pastTheBufferMessagesAreDroppedAndCounted() throws Exception {
        List<Integer> onB = outage(20);
        assertTrue(dropped > 0, "A dropped some: " + onB.size() + " arrived");
    }

    private long dropped;

    /** Publishes 101 messages, kills Redis, 101 more, restarts it, 101 more; returns what B got. */
    private List<Integer> outage(int bufferSize) throws Exception {
        RedisTesting.Node a = node(fixture.redis(), config -> config.bufferSize(bufferSize), "/chat/**");
        fixture.closing(a);
        RedisTesting.Node b = node(fixture.redis(), "/chat/**");
        fixture.closing(b);
        List<String> health = new CopyOnWriteArrayList<>();
        a.cluster().addEngineListener((cluster, up) -> health.add("a" + (up ? "+" : "-")));
        b.cluster().addEngineListener((cluster, up) -> health.add("b" + (up ? "+" : "-")));
        assertTrue(a.cluster().isConnected() && b.cluster().isConnected());

        List<Integer> onA = new CopyOnWriteArrayList<>();
        List<Integer> onB = new CopyOnWriteArrayList<>();
        BayeuxClient clientA = fixture.connected(a.url(), "long-polling");
        BayeuxClient clientB = fixture.connected(b.url(), "websocket");
        assertTrue(subscribe(clientA, "/chat/room", (ch, m) -> onA.add(((Number) m.getDataAsMap().get("n")).intValue())).isSuccessful());
        assertTrue(subscribe(clientB, "/chat/room", (ch, m) -> onB.add(((Number) m.getDataAsMap().get("n")).intValue())).isSuccessful());
        await("B subscribed in Redis", () -> b.cluster().isSubscribed("/chat/room"));
        BayeuxClient publisher = fixture.connected(a.url(), "websocket");

        int n = 0;
        for (; n < 100; n++) {
            publisher.getChannel("/chat/room").publish(Map.of("n", n));
        }
        assertTrue(publish(publisher, "/chat/room", Map.of("n", n++)).isSuccessful());
        // Redis took (or A dropped) all of it, and B got what Redis took.
        await("A's first messages accounted for", () -> a.cluster().getPublished() + a.cluster().getDropped() == 101);
        await("B got what came before the outage", () -> onB.size() == a.cluster().getPublished());
        fixture.redis().kill();
        await("A told Redis is away", () -> !a.cluster().isConnected());
        await("B told Redis is away", () -> !b.cluster().isConnected());
        // Redis away: A's own clients are still served.
        for (int i = 0; i < 100; i++, n++) {
            publisher.getChannel("/chat/room").publish(Map.of("n", n));
        }
        assertTrue(publish(publisher, "/chat/room", Map.of("n", n++)).isSuccessful());
        int sent = n;
        await("A's local subscriber served during the outage", () -> onA.size() == sent);

        fixture.redis().restart();
        await("A back", () -> a.cluster().isConnected());
        await("B back", () -> b.cluster().isConnected());
        // A's and B's subscriptions (A's clients subscribe too; A drops its own messages).
        await("both subscriptions back in Redis", () -> numsub("bayeux:/chat/room") == 2);
        for (int i = 0; i < 100; i++, n++) {
            publisher.getChannel("/chat/room").publish(Map.of("n", n));
        }
        int before = n;
        // The marker goes once Redis took (or A dropped) all the rest: it alone cannot overflow the buffer.
        await("A's messages accounted for", () -> a.cluster().getPublished() + a.cluster().getDropped() == before);
        int marker = n++;
        assertTrue(publish(publisher, "/chat/room", Map.of("n", marker)).isSuccessful());
        await("the marker on B", () -> onB.contains(marker));
        await("the marker on A", () -> onA.contains(marker));

        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            all.add(i);
        }
        assertEquals(all, onA, "A: everything, once, in order");
        assertEquals(onB.size(), new HashSet<>(onB).size(), "B: nothing twice");
        for (int i = 1; i < onB.size(); i++) {
            assertTrue(onB.get(i) > onB.get(i - 1), "B: in order at " + i + ": " + onB);
        }
        long lost = b.cluster().getLost();
        dropped = a.cluster().getDropped();
        assertTrue(lost >= dropped, "what A dropped B lost, and counted");
        if (dropped == 0) {
            assertTrue(onB.containsAll(all.subList(0, 101)), "before the outage: all");
            assertTrue(onB.containsAll(all.subList(202, n)), "after it: all");
        }
        assertEquals(n, onB.size() + lost, "B: what did not arrive is counted (" + lost + " lost, "
                + a.cluster().getDropped() + " dropped by A)");
        // A node tells its engine listeners after isConnected() changed, on Lettuce's thread.
        await("the engine listeners told of the outage and the return", () -> health.containsAll(List.of("a-", "b-", "a+", "b+")));
        System.out.printf("outage: %d published, %d on B, %d lost (counted by B), %d dropped (counted by A)%n",
                n, onB.size(), lost, a.cluster().getDropped());
        return onB;
    }

    @Test
    void presenceIsPublishedAgainWhenRedisComesBackEmpty() throws Exception {
        RedisTesting.Node a = node(fixture.redis());
        fixture.closing(a);
        RedisTesting.Node b = node(fixture.redis());
        fixture.closing(b);
        RedisSeti setiA = new RedisSeti(a.cluster(), java.time.Duration.ofSeconds(2));
        RedisSeti setiB = new RedisSeti(b.cluster(), java.time.Duration.ofSeconds(2));
        setiA.start();
        fixture.closing(setiA::stop);
        setiB.start();
        fixture.closing(setiB::stop);
        BayeuxClient alice = fixture.connected(a.url(), "websocket");
        setiA.associate("alice", a.server().bayeux().getSession(alice.getId()));
        await("alice known on B", () -> setiB.isPresent("alice"));

        fixture.redis().kill();
        await("A told Redis is away", () -> !a.cluster().isConnected());
        // Redis away: what each node knows stays; local users stay local.
        assertTrue(setiA.isAssociated("alice"));
        fixture.redis().restart();
        assertTrue(fixture.redis().command("EXISTS bayeux:presence:" + setiA.getId()).startsWith(":0"), "Redis came back empty");
        await("alice's presence published again", () -> {
            try {
                return fixture.redis().command("SMEMBERS bayeux:presence:" + setiA.getId()).contains("alice");
            } catch (java.io.IOException x) {
                return false;
            }
        });
        await("alice known on B", () -> setiB.isPresent("alice"));
        // And messages reach her again through A's own Redis channel.
        List<Object> toAlice = new CopyOnWriteArrayList<>();
        alice.getChannel("/private").subscribe((ch, m) -> toAlice.add(m.getDataAsMap().get("text")));
        await("alice subscribed", () -> a.server().bayeux().getChannel("/private") != null
                && !a.server().bayeux().getChannel("/private").getSubscribers().isEmpty());
        await("A's Redis channel back", () -> numsub("bayeux:seti:" + setiA.getId()) == 1);
        setiB.sendMessage("alice", "/private", Map.of("text", "welcome back"));
        await("the message", () -> toAlice.contains("welcome back"));
    }

    private int numsub(String channel) {
        try {
            String reply = fixture.redis().command("PUBSUB NUMSUB " + channel);
            return Integer.parseInt(reply.substring(reply.lastIndexOf(':') + 1).trim());
        } catch (java.io.IOException x) {
            return -1;
        }
    }
}
