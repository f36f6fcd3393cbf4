package io.bayeux.examples;

import io.bayeux.api.Message;
import io.bayeux.client.BayeuxClient;
import io.bayeux.cluster.redis.RedisProcess;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Two demo nodes on one Redis (the --engine flag): people on two nodes chat together and see each other. */
class DemoRedisIT {
    private static final Duration WAIT = Duration.ofSeconds(40);
    private final List<DemoRedis.Node> nodes = new ArrayList<>();
    private final List<BayeuxClient> clients = new ArrayList<>();
    private RedisProcess redis;

    @AfterEach
    void stop() throws Exception {
        clients.forEach(BayeuxClient::disconnect);
        nodes.forEach(DemoRedis.Node::stop);
        if (redis != null) {
            redis.close();
        }
    }

    private DemoRedis.Node node() {
        DemoRedis engine = new DemoRedis();
        engine.set("--engine", redis.uri());
        DemoRedis.Node node = engine.start(DemoServer.configure(NettyBayeuxServer.builder().host("127.0.0.1").port(0)));
        nodes.add(node);
        return node;
    }

    private BayeuxClient client(DemoRedis.Node node) throws InterruptedException {
        BayeuxClient client = new BayeuxClient(node.server().uri().toString());
        clients.add(client);
        client.handshake();
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED));
        return client;
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("Timed out waiting for " + what);
            }
            Thread.sleep(25);
        }
    }

    @Test
    void twoPeopleOnTwoNodesChatAndSeeEachOther() throws Exception {
        redis = RedisProcess.start();
        DemoRedis.Node a = node();
        DemoRedis.Node b = node();

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

        await("both nodes subscribed in Redis", () -> a.cluster().isSubscribed("/chat/lobby") && b.cluster().isSubscribed("/chat/lobby"));
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
