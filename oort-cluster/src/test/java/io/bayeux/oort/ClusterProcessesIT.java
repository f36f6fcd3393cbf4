package io.bayeux.oort;

import io.bayeux.api.client.ClientSessionChannel;
import io.bayeux.client.BayeuxClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import static io.bayeux.oort.OortTesting.await;
import static io.bayeux.oort.OortTesting.publish;
import static io.bayeux.oort.OortTesting.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Nodes as separate JVMs on loopback: the mesh from one seed each, delivery across nodes,
 * Seti across nodes, and {@code kill -9} of a node under load: the survivors notice within the
 * failure timeout, lose nothing among themselves, drop the dead node's users, and take the
 * node back when it restarts (left, then joined with its new id).
 */
class ClusterProcessesIT {
    private static final long FAILURE_MILLIS = 3000;
    private final Closing closing = new Closing();

    @AfterEach
    void close() {
        closing.closeAll();
    }

    private NodeProcess start(int port, String... peers) throws Exception {
        return start("websocket", port, peers);
    }

    private NodeProcess start(String links, int port, String... peers) throws Exception {
        NodeProcess node = NodeProcess.start(links, port, FAILURE_MILLIS, peers);
        closing.add(node);
        return node;
    }

    private BayeuxClient client(String url, String transport) throws InterruptedException {
        BayeuxClient client = OortTesting.client(url, transport);
        closing.add(client::disconnect);
        return client;
    }

    private static void awaitMesh(NodeProcess... nodes) throws InterruptedException {
        for (NodeProcess node : nodes) {
            Set<String> others = new java.util.HashSet<>();
            for (NodeProcess other : nodes) {
                if (other != node) {
                    others.add(other.url);
                }
            }
            await(node.url + " to know " + others + " (" + node.lines + ")", () -> node.joined().equals(others));
        }
    }

    @ParameterizedTest(name = "links over {0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void threeProcessesMeshFromOneSeedEachDeliverOnceInOrderAndFindUsers(String links) throws Exception {
        NodeProcess a = start(links, NodeProcess.freePort());
        NodeProcess b = start(links, NodeProcess.freePort(), a.url);
        NodeProcess c = start(links, NodeProcess.freePort(), b.url);
        awaitMesh(a, b, c);

        List<Object> onB = new CopyOnWriteArrayList<>();
        List<Object> onC = new CopyOnWriteArrayList<>();
        BayeuxClient clientB = client(b.url, "long-polling");
        BayeuxClient clientC = client(c.url, "websocket");
        subscribe(clientB, "/chat/room", (ch, m) -> onB.add(m.getDataAsMap().get("n")));
        subscribe(clientC, "/chat/room", (ch, m) -> onC.add(m.getDataAsMap().get("n")));
        BayeuxClient publisher = client(a.url, "websocket");
        List<Object> expected = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            publisher.getChannel("/chat/room").publish(Map.of("n", i));
            expected.add(i);
        }
        assertTrue(publish(publisher, "/chat/room", Map.of("n", -1)).isSuccessful());
        expected.add(-1);
        await("all on B", () -> onB.contains(-1));
        await("all on C", () -> onC.contains(-1));
        assertEquals(expected, onB);
        assertEquals(expected, onC);

        // Seti across processes: carol logs in on C, A sends her a message.
        List<Object> toCarol = new CopyOnWriteArrayList<>();
        clientC.getChannel("/private").addListener((ClientSessionChannel.MessageListener) (ch, m) -> toCarol.add(m.getData()));
        publish(clientC, "/service/login", Map.of("user", "carol"));
        a.await("carol present on A", line -> line.equals("PRESENCE+ carol " + c.url));
        b.await("carol present on B", line -> line.equals("PRESENCE+ carol " + c.url));
        publish(publisher, "/service/send", Map.of("to", "carol", "text", "hello carol"));
        await("carol's message", () -> toCarol.contains("hello carol"));
        assertEquals(List.of("hello carol"), toCarol);
    }

    @Test
    void killNineUnderLoadIsNoticedWithinTheFailureTimeoutAndTheNodeRejoins() throws Exception {
        NodeProcess a = start(NodeProcess.freePort());
        NodeProcess b = start(NodeProcess.freePort(), a.url);
        int portC = NodeProcess.freePort();
        NodeProcess c = start(portC, b.url);
        awaitMesh(a, b, c);
        String oldId = c.id;

        BayeuxClient userC = client(c.url, "websocket");
        publish(userC, "/service/login", Map.of("user", "carol"));
        a.await("carol on A", line -> line.equals("PRESENCE+ carol " + c.url));
        b.await("carol on B", line -> line.equals("PRESENCE+ carol " + c.url));

        List<Object> onB = new CopyOnWriteArrayList<>();
        BayeuxClient clientB = client(b.url, "websocket");
        subscribe(clientB, "/chat/room", (ch, m) -> onB.add(m.getDataAsMap().get("n")));
        BayeuxClient publisher = client(a.url, "websocket");
        AtomicBoolean loading = new AtomicBoolean(true);
        List<Object> sent = new CopyOnWriteArrayList<>();
        Thread load = new Thread(() -> {
            for (int i = 0; loading.get() && i < 100_000; i++) {
                publisher.getChannel("/chat/room").publish(Map.of("n", i));
                sent.add(i);
                try {
                    Thread.sleep(5);
                } catch (InterruptedException x) {
                    return;
                }
            }
        });
        load.start();
        closing.add(() -> {
            loading.set(false);
            load.join(10_000);
        });
        await("some load through", () -> onB.size() > 20);

        long killed = System.nanoTime();
        c.kill();
        String left = "LEFT " + c.url + " " + oldId;
        a.await("A to see C leave", left::equals);
        long onA = System.nanoTime() - killed;
        b.await("B to see C leave", left::equals);
        long onBms = (System.nanoTime() - killed) / 1_000_000;
        System.out.printf("kill -9 noticed after %d ms on A, %d ms on B (failure timeout %d ms)%n", onA / 1_000_000, onBms, FAILURE_MILLIS);
        // Bounded by the failure timeout, plus a heartbeat and generous slack for a busy machine.
        assertTrue(onBms < 3 * FAILURE_MILLIS + 10_000, () -> "took " + onBms + " ms");
        a.await("carol gone from A", line -> line.equals("PRESENCE- carol " + c.url));
        b.await("carol gone from B", line -> line.equals("PRESENCE- carol " + c.url));

        NodeProcess restarted = start(portC, a.url);
        String newId = restarted.id;
        assertTrue(!newId.equals(oldId));
        a.await("A to see C again", ("JOINED " + c.url + " " + newId)::equals);
        b.await("B to see C again", ("JOINED " + c.url + " " + newId)::equals);
        awaitMesh(a, b, restarted);

        loading.set(false);
        load.join(30_000);
        assertTrue(publish(publisher, "/chat/room", Map.of("n", -1)).isSuccessful());
        sent.add(-1);
        await("the marker on B", () -> onB.contains(-1));
        assertEquals(sent, onB, "B lost or reordered nothing from A while C died and came back");
    }

    @Test
    void aFrozenNodeIsNoticedWithoutAnyTcpCloseAndRejoinsWhenItThaws() throws Exception {
        NodeProcess a = start(NodeProcess.freePort());
        NodeProcess b = start(NodeProcess.freePort(), a.url);
        NodeProcess c = start(NodeProcess.freePort(), a.url);
        awaitMesh(a, b, c);
        closing.add(() -> c.freeze(false));
        long frozen = System.nanoTime();
        c.freeze(true);
        String left = "LEFT " + c.url + " " + c.id;
        a.await("A to see C leave", left::equals);
        b.await("B to see C leave", left::equals);
        long took = (System.nanoTime() - frozen) / 1_000_000;
        System.out.printf("frozen node noticed after %d ms (failure timeout %d ms)%n", took, FAILURE_MILLIS);
        assertTrue(took >= FAILURE_MILLIS / 2, () -> "noticed too early to be the heartbeat: " + took + " ms");
        assertTrue(took < 3 * FAILURE_MILLIS + 10_000, () -> "took " + took + " ms");
        c.freeze(false);
        awaitMesh(a, b, c);
        c.await("C to see A left while it was frozen", ("LEFT " + a.url + " " + a.id)::equals);
    }

    @Test
    void aNodeRestartedAtOnceReplacesItsOldSelfLeftThenJoined() throws Exception {
        NodeProcess a = start(NodeProcess.freePort());
        int portC = NodeProcess.freePort();
        NodeProcess c = start(portC, a.url);
        awaitMesh(a, c);
        String oldId = c.id;
        c.kill();
        NodeProcess restarted = start(portC, a.url);
        String joinedAgain = "JOINED " + c.url + " " + restarted.id;
        a.await("A to take the new C", joinedAgain::equals);
        List<String> aboutC = new ArrayList<>();
        for (String line : a.lines) {
            if (line.contains(c.url)) {
                aboutC.add(line);
            }
        }
        assertEquals(List.of("JOINED " + c.url + " " + oldId, "LEFT " + c.url + " " + oldId, joinedAgain), aboutC);
    }
}
