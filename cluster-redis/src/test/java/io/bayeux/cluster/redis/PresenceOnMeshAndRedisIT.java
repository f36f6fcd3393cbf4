package io.bayeux.cluster.redis;

import io.bayeux.api.Message;
import io.bayeux.client.BayeuxClient;
import io.bayeux.oort.OortConfig;
import io.bayeux.oort.OortNode;
import io.bayeux.oort.seti.Seti;
import io.bayeux.presence.Presence;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import static io.bayeux.cluster.redis.RedisTesting.await;
import static io.bayeux.cluster.redis.RedisTesting.next;
import static io.bayeux.cluster.redis.RedisTesting.publish;
import static io.bayeux.cluster.redis.RedisTesting.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The same application ({@link DirectMessages}, written against {@link Presence} only) on two
 * nodes of an Oort mesh ({@link Seti}) and on two nodes sharing a real redis-server
 * ({@link RedisSeti}), with clients over both transports: only the start-up differs.
 */
class PresenceOnMeshAndRedisIT {
    @RegisterExtension
    final RedisFixture fixture = RedisFixture.withoutServer();

    /** A started node: where its clients connect, and the application installed on it. */
    private record Node(String url, DirectMessages app) {
        Presence presence() {
            return app.presence();
        }
    }

    /** Two nodes of the given kind: the only code that knows which. */
    private List<Node> twoNodes(String kind) throws Exception {
        List<Node> nodes = new ArrayList<>();
        if (kind.equals("mesh")) {
            String peer = null;
            for (int i = 0; i < 2; i++) {
                OortConfig.Builder config = OortConfig.builder().secret("presence test").failureTimeout(Duration.ofSeconds(6));
                if (peer != null) {
                    config.peer(peer);
                }
                OortNode node = OortNode.start(NettyBayeuxServer.builder().host("127.0.0.1").port(0), config.build());
                fixture.closing(node);
                peer = node.oort().getURL();
                nodes.add(new Node(node.server().uri().toString(), DirectMessages.install(node.server().bayeux(), node.seti())));
                assertEquals(node.oort().getURL(), node.seti().getNode(), "a mesh node is named by its Oort URL");
            }
        } else {
            RedisProcess redis = RedisProcess.start();
            fixture.closing(redis);
            for (int i = 0; i < 2; i++) {
                RedisTesting.Node node = RedisTesting.node(redis);
                fixture.closing(node);
                RedisSeti seti = new RedisSeti(node.cluster(), Duration.ofSeconds(3));
                seti.start();
                fixture.closing(seti::stop);
                nodes.add(new Node(node.url(), DirectMessages.install(node.server().bayeux(), seti)));
                assertEquals(node.cluster().getNodeId(), seti.getNode(), "a Redis node is named by its node id");
            }
        }
        return nodes;
    }

    @ParameterizedTest
    @ValueSource(strings = {"mesh", "redis"})
    void theSameApplicationCodeRunsOnAMeshAndOnRedis(String kind) throws Exception {
        List<Node> nodes = twoNodes(kind);
        Node a = nodes.get(0);
        Node b = nodes.get(1);
        Class<? extends Presence> expected = kind.equals("mesh") ? Seti.class : RedisSeti.class;
        assertInstanceOf(expected, a.presence());
        assertInstanceOf(expected, b.presence());
        String nodeA = a.presence().getNode();
        String nodeB = b.presence().getNode();
        assertNotEquals(nodeA, nodeB);

        BayeuxClient alice = fixture.connected(a.url(), "websocket");
        BayeuxClient bob = fixture.connected(b.url(), "long-polling");
        BlockingQueue<Message> aliceInbox = new LinkedBlockingQueue<>();
        BlockingQueue<Message> bobInbox = new LinkedBlockingQueue<>();
        assertTrue(subscribe(alice, DirectMessages.INBOX, (ch, m) -> aliceInbox.add(m)).isSuccessful());
        assertTrue(subscribe(bob, DirectMessages.INBOX, (ch, m) -> bobInbox.add(m)).isSuccessful());
        assertTrue(publish(alice, DirectMessages.LOGIN, Map.of("name", "alice")).isSuccessful());
        assertTrue(publish(bob, DirectMessages.LOGIN, Map.of("name", "bob")).isSuccessful());

        await("bob known on A", () -> a.presence().isPresent("bob"));
        await("alice known on B", () -> b.presence().isPresent("alice"));
        assertEquals(Set.of("alice", "bob"), a.presence().getUserIds());
        assertEquals(Set.of("alice", "bob"), b.presence().getUserIds());
        assertEquals(Set.of("alice"), a.presence().getAssociatedUserIds());
        assertTrue(a.presence().isAssociated("alice"));
        assertFalse(b.presence().isAssociated("alice"));
        assertEquals(1, a.presence().getAssociationCount("alice"));
        assertEquals(Set.of(nodeA), b.presence().getNodes("alice"));
        assertEquals(Set.of(nodeB), a.presence().getNodes("bob"));
        // One event per user and node; the two logins race each other, so in either order. A remote
        // user's event fires after the user is in the node's view (outside its lock, on the thread
        // that read the news): wait for both before comparing.
        await("A's application told of bob", () -> a.app().log().contains("+bob@" + nodeB));
        await("B's application told of alice", () -> b.app().log().contains("+alice@" + nodeA));
        assertEquals(Set.of("+alice@local", "+bob@" + nodeB), Set.copyOf(a.app().log()));
        assertEquals(Set.of("+bob@local", "+alice@" + nodeA), Set.copyOf(b.app().log()));
        assertEquals(2, a.app().log().size(), a.app().log()::toString);
        assertEquals(2, b.app().log().size(), b.app().log()::toString);

        // alice on A writes to bob on B, and bob answers: through the cluster both ways.
        assertTrue(publish(alice, DirectMessages.SEND, Map.of("from", "alice", "to", "bob", "text", "hi bob")).isSuccessful());
        assertEquals(Map.of("from", "alice", "text", "hi bob"), next(bobInbox).getDataAsMap());
        assertTrue(publish(bob, DirectMessages.SEND, Map.of("from", "bob", "to", "alice", "text", "hi alice")).isSuccessful());
        assertEquals(Map.of("from", "bob", "text", "hi alice"), next(aliceInbox).getDataAsMap());
        // To oneself: delivered on the node itself.
        assertTrue(publish(bob, DirectMessages.SEND, Map.of("from", "bob", "to", "bob", "text", "note")).isSuccessful());
        assertEquals(Map.of("from", "bob", "text", "note"), next(bobInbox).getDataAsMap());

        // alice's session ends: she leaves everywhere, and B's application is told by whom.
        alice.disconnect();
        await("alice gone from B", () -> !b.presence().isPresent("alice"));
        await("alice gone from A", () -> !a.presence().isPresent("alice"));
        await("B's application told", () -> b.app().log().contains("-alice@" + nodeA));
        assertEquals(3, b.app().log().size(), b.app().log()::toString);
        assertEquals("-alice@" + nodeA, b.app().log().get(2));
        assertEquals(Set.of("bob"), b.presence().getUserIds());
        assertTrue(aliceInbox.isEmpty() && bobInbox.isEmpty(), "nothing twice");
    }
}
