package io.bayeux.examples;

import io.bayeux.api.Message;
import io.bayeux.client.BayeuxClient;
import io.bayeux.cluster.redis.RedisNode;
import io.bayeux.cluster.redis.RedisProcess;
import io.bayeux.oort.OortNode;
import io.bayeux.testing.Await;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two demo nodes in a cluster, an Oort mesh (the --oort-* flags) or nodes on one Redis (the
 * --engine flag): people on two nodes chat together and see each other. Only the start-up differs.
 */
class DemoClusterIT {
    private static final Duration WAIT = Duration.ofSeconds(40);
    /** How each node stops, in the order they started. */
    private final List<Runnable> nodes = new ArrayList<>();
    private final List<BayeuxClient> clients = new ArrayList<>();
    private RedisProcess redis;

    /** A started demo node: where its clients connect, and whether its cluster carries {@code /chat/lobby} yet. */
    private record Node(URI uri, BooleanSupplier chatSubscribed) {
    }

    @AfterEach
    void stop() throws Exception {
        clients.forEach(BayeuxClient::disconnect);
        nodes.forEach(Runnable::run);
        if (redis != null) {
            redis.close();
        }
    }

    /** Two nodes of the given kind: the only code that knows which. */
    private List<Node> twoNodes(String kind) throws Exception {
        if (kind.equals("oort")) {
            OortNode a = oortNode();
            OortNode b = oortNode(a.oort().getURL());
            await("the cluster", () -> a.oort().getKnownComets().equals(Set.of(b.oort().getURL())) && b.oort().getKnownComets().equals(Set.of(a.oort().getURL())));
            return List.of(new Node(a.server().uri(), () -> true), new Node(b.server().uri(), () -> true));
        }
        redis = RedisProcess.start();
        List<Node> started = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            DemoRedis engine = new DemoRedis();
            engine.set("--engine", redis.uri());
            RedisNode node = engine.start(DemoServer.configure(NettyBayeuxServer.builder().host("127.0.0.1").port(0)));
            nodes.add(node::stop);
            started.add(new Node(node.server().uri(), () -> node.cluster().isSubscribed("/chat/lobby")));
        }
        return started;
    }

    private OortNode oortNode(String... peers) {
        DemoCluster cluster = new DemoCluster();
        cluster.set("--oort-secret", "demo secret");
        cluster.set("--oort-channels", "/chat/**");
        cluster.set("--oort-failure-timeout", "4000");
        if (peers.length > 0) {
            cluster.set("--oort-peers", String.join(",", peers));
        }
        OortNode node = cluster.start(DemoServer.configure(NettyBayeuxServer.builder().port(0)));
        nodes.add(node::stop);
        return node;
    }

    private BayeuxClient client(Node node) throws InterruptedException {
        BayeuxClient client = new BayeuxClient(node.uri().toString());
        clients.add(client);
        client.handshake();
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED));
        return client;
    }

    private static void await(String what, BooleanSupplier condition) {
        Await.until(WAIT, condition, () -> what);
    }

    @ParameterizedTest
    @ValueSource(strings = {"oort", "redis"})
    void twoPeopleOnTwoNodesChatAndSeeEachOther(String kind) throws Exception {
        List<Node> both = twoNodes(kind);
        Node a = both.get(0);
        Node b = both.get(1);

        BayeuxClient alice = client(a);
        BayeuxClient bob = client(b);
        List<Object> aliceMembers = new CopyOnWriteArrayList<>();
        List<Object> bobMembers = new CopyOnWriteArrayList<>();
        List<Message> aliceChat = new CopyOnWriteArrayList<>();
        List<Message> bobChat = new CopyOnWriteArrayList<>();
        alice.getChannel("/members/lobby").subscribe((ch, m) -> aliceMembers.add(m.getData()));
        alice.getChannel("/chat/lobby").subscribe((ch, m) -> aliceChat.add(m));
        bob.getChannel("/members/lobby").subscribe((ch, m) -> bobMembers.add(m.getData()));
        bob.getChannel("/chat/lobby").subscribe((ch, m) -> bobChat.add(m));
        alice.getChannel(MembersService.CHANNEL).publish(Map.of("room", "/chat/lobby", "user", "alice", "action", "join"));
        bob.getChannel(MembersService.CHANNEL).publish(Map.of("room", "/chat/lobby", "user", "bob", "action", "join"));
        await("alice to see bob", () -> !aliceMembers.isEmpty() && aliceMembers.get(aliceMembers.size() - 1).equals(List.of("alice", "bob")));
        await("bob to see alice", () -> !bobMembers.isEmpty() && bobMembers.get(bobMembers.size() - 1).equals(List.of("alice", "bob")));

        await("both nodes subscribed to the chat", () -> a.chatSubscribed().getAsBoolean() && b.chatSubscribed().getAsBoolean());
        alice.getChannel("/chat/lobby").publish(Map.of("user", "alice", "text", "<b>fish & chips</b>"));
        await("bob to read alice", () -> !bobChat.isEmpty());
        await("alice to read herself", () -> !aliceChat.isEmpty());
        // Filtered once, on alice's node: the same text on both nodes.
        assertEquals("&lt;b&gt;fish &amp; chips&lt;/b&gt;", aliceChat.get(0).getDataAsMap().get("text"));
        assertEquals(aliceChat.get(0).getData(), bobChat.get(0).getData());

        alice.getChannel(MembersService.CHANNEL).publish(Map.of("room", "/chat/lobby", "user", "alice", "action", "leave"));
        await("bob to see alice leave", () -> bobMembers.get(bobMembers.size() - 1).equals(List.of("bob")));
    }
}
