package io.bayeux.cluster.redis;

import io.bayeux.client.BayeuxClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.bayeux.cluster.redis.RedisTesting.await;
import static io.bayeux.cluster.redis.RedisTesting.node;
import static io.bayeux.cluster.redis.RedisTesting.publish;
import static io.bayeux.cluster.redis.RedisTesting.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Nodes in one JVM sharing observed channels through a real redis-server. */
class RedisClusterIT {
    @RegisterExtension
    final RedisFixture fixture = RedisFixture.withRedis();

    @Test
    void threeNodesGetEveryMessageOnceInOrderOverBothTransports() throws Exception {
        RedisTesting.Node a = fixture.closing(node(fixture.redis(), "/chat/**"));
        RedisTesting.Node b = fixture.closing(node(fixture.redis(), "/chat/**"));
        RedisTesting.Node c = fixture.closing(node(fixture.redis(), "/chat/**"));
        List<Object> onA = new CopyOnWriteArrayList<>();
        List<Object> onB = new CopyOnWriteArrayList<>();
        List<Object> onC = new CopyOnWriteArrayList<>();
        List<Object> onCWild = new CopyOnWriteArrayList<>();
        BayeuxClient clientA = fixture.connected(a.url(), "websocket");
        BayeuxClient clientB = fixture.connected(b.url(), "long-polling");
        BayeuxClient clientC = fixture.connected(c.url(), "websocket");
        BayeuxClient clientCWild = fixture.connected(c.url(), "long-polling");
        assertTrue(subscribe(clientA, "/chat/room", (ch, m) -> onA.add(m.getDataAsMap().get("n"))).isSuccessful());
        assertTrue(subscribe(clientB, "/chat/room", (ch, m) -> onB.add(m.getDataAsMap().get("n"))).isSuccessful());
        assertTrue(subscribe(clientC, "/chat/room", (ch, m) -> onC.add(m.getDataAsMap().get("n"))).isSuccessful());
        // C needs the channel twice in Redis (SUBSCRIBE and PSUBSCRIBE): each message arrives twice there.
        assertTrue(subscribe(clientCWild, "/chat/*", (ch, m) -> onCWild.add(m.getDataAsMap().get("n"))).isSuccessful());
        await("B subscribed in Redis", () -> b.cluster().isSubscribed("/chat/room"));
        await("C subscribed in Redis", () -> c.cluster().isSubscribed("/chat/room") && c.cluster().isSubscribed("/chat/*"));

        BayeuxClient publisher = fixture.connected(a.url(), "websocket");
        int count = 200;
        for (int i = 0; i < count; i++) {
            publisher.getChannel("/chat/room").publish(Map.of("n", i));
        }
        assertTrue(publish(publisher, "/chat/room", Map.of("n", count)).isSuccessful());
        List<Object> expected = new ArrayList<>();
        for (int i = 0; i <= count; i++) {
            expected.add(i);
        }
        // A marker published after: once it arrived everywhere, no duplicate can still be on its way.
        assertTrue(publish(publisher, "/chat/room", Map.of("n", -1)).isSuccessful());
        expected.add(-1);
        await("the marker on A", () -> onA.contains(-1));
        await("the marker on B", () -> onB.contains(-1));
        await("the marker on C", () -> onC.contains(-1));
        await("the marker on C's wildcard", () -> onCWild.contains(-1));
        assertEquals(expected, onA, "A: once each, in order, no echo");
        assertEquals(expected, onB, "B: once each, in order");
        assertEquals(expected, onC, "C: once each, in order");
        assertEquals(expected, onCWild, "C's wildcard subscriber: once each, in order");
        // A counts a message once Redis answered its PUBLISH, on Lettuce's thread: Redis may push the
        // marker to B and C (and they to their clients) before A reads that answer. C counts a second
        // copy when it reads it, after the first copy already went to its subscribers.
        await("A's publishes answered", () -> a.cluster().getPublished() + a.cluster().getDropped() >= count + 2);
        await("C's second copies read", () -> c.cluster().getDuplicates() >= count + 2);
        assertEquals(count + 2, a.cluster().getPublished(), "each message crossed Redis once");
        assertEquals(0, b.cluster().getPublished(), "B re-published nothing");
        assertEquals(0, c.cluster().getPublished(), "C re-published nothing");
        assertEquals(count + 2, c.cluster().getDuplicates(), "C dropped the pattern's second copies");
        assertEquals(0, a.cluster().getDropped());
    }

    @Test
    void aNodeSubscribesInRedisOnlyToWhatItsClientsNeed() throws Exception {
        RedisTesting.Node a = fixture.closing(node(fixture.redis(), "/chat/**"));
        RedisTesting.Node b = fixture.closing(node(fixture.redis(), "/chat/**"));
        assertTrue(a.cluster().getRedisSubscriptions().isEmpty(), "no firehose");
        BayeuxClient clientB = fixture.connected(b.url(), "websocket");
        List<Object> onB = new CopyOnWriteArrayList<>();
        assertTrue(subscribe(clientB, "/chat/one", (ch, m) -> onB.add(m.getDataAsMap().get("n"))).isSuccessful());
        await("B subscribed in Redis", () -> b.cluster().isSubscribed("/chat/one"));
        assertEquals(java.util.Set.of("bayeux:/chat/one"), b.cluster().getRedisSubscriptions());
        assertTrue(a.cluster().getRedisSubscriptions().isEmpty(), "A's clients need nothing");
        await("Redis counts one subscriber", () -> numsub("bayeux:/chat/one") == 1);
        assertEquals(0, numsub("bayeux:/chat/two"));

        BayeuxClient publisher = fixture.connected(a.url(), "long-polling");
        assertTrue(publish(publisher, "/chat/two", Map.of("n", 2)).isSuccessful());
        assertTrue(publish(publisher, "/chat/one", Map.of("n", 1)).isSuccessful());
        await("B's message", () -> onB.contains(1));
        assertEquals(List.of(1), onB);
        // Counted when Redis answers A's PUBLISH (on Lettuce's thread), which may come after B got the message.
        await("A's two publishes answered", () -> a.cluster().getPublished() + a.cluster().getDropped() >= 2);
        assertEquals(2, a.cluster().getPublished());

        // Not observed: never leaves its node. A marker after it (answered in order on A's one
        // connection) tells when a PUBLISH of it would have been counted.
        assertTrue(publish(publisher, "/other", Map.of("n", 3)).isSuccessful());
        assertTrue(publish(publisher, "/chat/one", Map.of("n", 4)).isSuccessful());
        await("the marker on B", () -> onB.contains(4));
        await("the marker's publish answered", () -> a.cluster().getPublished() + a.cluster().getDropped() >= 3);
        assertEquals(3, a.cluster().getPublished(), "/other not published in Redis");

        clientB.getChannel("/chat/one").unsubscribe();
        await("B unsubscribed in Redis", () -> b.cluster().getRedisSubscriptions().isEmpty());
        await("Redis counts none", () -> numsub("bayeux:/chat/one") == 0);
        assertFalse(b.cluster().isSubscribed("/chat/one"));
    }

    @Test
    void aSubscriberToATopLevelWildcardGetsWhatAnotherNodePublishes() throws Exception {
        RedisTesting.Node a = fixture.closing(node(fixture.redis(), "/chat/**", "/news"));
        RedisTesting.Node b = fixture.closing(node(fixture.redis(), "/chat/**", "/news"));
        // Each wildcard, and an observed channel it matches.
        for (List<String> wildcardAndChannel : List.of(List.of("/**", "/chat/room"), List.of("/*", "/news"))) {
            String wildcard = wildcardAndChannel.get(0);
            String channel = wildcardAndChannel.get(1);
            List<Object> onB = new CopyOnWriteArrayList<>();
            BayeuxClient clientB = fixture.connected(b.url(), "websocket");
            assertTrue(subscribe(clientB, wildcard, (ch, m) -> onB.add(m.getChannel() + " " + m.getDataAsMap().get("n"))).isSuccessful(),
                    wildcard);
            await("B subscribed in Redis to " + wildcard, () -> b.cluster().isSubscribed(wildcard));
            BayeuxClient publisher = fixture.connected(a.url(), "websocket");
            assertTrue(publish(publisher, channel, Map.of("n", 1)).isSuccessful());
            await(channel + " on B's " + wildcard, () -> onB.contains(channel + " 1"));
            clientB.disconnect();
            publisher.disconnect();
        }
    }

    private int numsub(String channel) {
        try {
            String reply = fixture.redis().command("PUBSUB NUMSUB " + channel);
            // *2\r\n$N\r\nchannel\r\n:count\r\n
            int colon = reply.lastIndexOf(':');
            return Integer.parseInt(reply.substring(colon + 1).trim());
        } catch (java.io.IOException x) {
            throw new java.io.UncheckedIOException(x);
        }
    }
}
