package io.bayeux.oort;

import io.bayeux.client.BayeuxClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static io.bayeux.oort.OortTesting.await;
import static io.bayeux.oort.OortTesting.publish;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Oort objects and services on nodes in separate JVMs ({@link ObjectsNodeMain}): concurrent
 * updates on three nodes converge, a late joiner gets the whole state, and {@code kill -9}
 * of a node removes its parts everywhere and fails the forwards waiting for it.
 */
class ObjectsProcessesIT {
    private static final long FAILURE_MILLIS = 3000;
    private final Closing closing = new Closing();

    @AfterEach
    void close() {
        closing.closeAll();
    }

    private NodeProcess start(String... peers) throws Exception {
        NodeProcess node = NodeProcess.start(ObjectsNodeMain.class, "websocket", NodeProcess.freePort(), FAILURE_MILLIS, peers);
        closing.add(node);
        return node;
    }

    private BayeuxClient client(NodeProcess node) throws InterruptedException {
        BayeuxClient client = OortTesting.client(node.url, "websocket");
        closing.add(client::disconnect);
        return client;
    }

    /** The MAP line a node prints once it holds these parts with these sizes. */
    private static String mapLine(Map<String, Integer> sizes) {
        StringBuilder line = new StringBuilder("MAP");
        new java.util.TreeMap<>(sizes).forEach((url, size) -> line.append(' ').append(url).append('=').append(size));
        return line.toString();
    }

    private static void awaitLast(NodeProcess node, String prefix, String expected) throws InterruptedException {
        await(node.url + " to print " + expected, () -> {
            String last = null;
            for (String line : node.lines) {
                if (line.startsWith(prefix)) {
                    last = line;
                }
            }
            return expected.equals(last);
        });
    }

    @Test
    void concurrentUpdatesOnThreeProcessesConvergeAndALateJoinerGetsTheWholeState() throws Exception {
        NodeProcess a = start();
        NodeProcess b = start(a.url);
        NodeProcess c = start(b.url);
        for (NodeProcess node : List.of(a, b, c)) {
            await(node.url + " in the mesh", () -> node.lines.stream().filter(l -> l.startsWith("MAP")).reduce((x, y) -> y)
                    .map(l -> l.split(" ").length == 4).orElse(false));
        }
        List<BayeuxClient> clients = List.of(client(a), client(b), client(c));
        // Every node at once: no reply awaited until all are sent.
        for (int round = 0; round < 5; round++) {
            for (int i = 0; i < clients.size(); i++) {
                clients.get(i).getChannel("/service/cmd").publish(Map.of("op", "add", "times", 40));
                clients.get(i).getChannel("/service/cmd").publish(Map.of("op", "put", "prefix", "n" + i + "r" + round, "count", 20));
            }
        }
        for (BayeuxClient client : clients) {
            assertTrue(publish(client, "/service/cmd", Map.of("op", "add", "times", 0)).isSuccessful());
        }
        Map<String, Integer> sizes = Map.of(a.url, 100, b.url, 100, c.url, 100);
        for (NodeProcess node : List.of(a, b, c)) {
            awaitLast(node, "SUM", "SUM 600");
            awaitLast(node, "MAP", mapLine(sizes));
        }

        NodeProcess d = start(c.url);
        awaitLast(d, "SUM", "SUM 600");
        Map<String, Integer> withD = new java.util.HashMap<>(sizes);
        withD.put(d.url, 0);
        awaitLast(d, "MAP", mapLine(withD));
        awaitLast(a, "MAP", mapLine(withD));
    }

    @Test
    void killNineRemovesTheDeadNodesPartsEverywhereAndFailsItsPendingForwards() throws Exception {
        NodeProcess a = start();
        NodeProcess b = start(a.url);
        NodeProcess c = start(a.url);
        Map<String, Integer> empty = Map.of(a.url, 0, b.url, 0, c.url, 0);
        for (NodeProcess node : List.of(a, b, c)) {
            awaitLast(node, "MAP", mapLine(empty));
        }
        BayeuxClient toC = client(c);
        publish(toC, "/service/cmd", Map.of("op", "add", "times", 3));
        publish(toC, "/service/cmd", Map.of("op", "put", "prefix", "c", "count", 4));
        BayeuxClient toB = client(b);
        publish(toB, "/service/cmd", Map.of("op", "forward", "target", c.url, "param", "ping", "ctx", "ping"));
        b.await("an answer from C", line -> line.equals("FORWARD-OK ping " + c.url));
        for (NodeProcess node : List.of(a, b)) {
            awaitLast(node, "SUM", "SUM 3");
        }
        // C will never answer this one; its timeout (5 minutes) is far beyond the test's waits.
        // The command's reply comes after B's listener ran: the forward is pending on B.
        publish(toB, "/service/cmd", Map.of("op", "forward", "target", c.url, "param", "hang", "ctx", "hung"));
        long killed = System.nanoTime();
        c.kill();
        b.await("the hung forward to fail", line -> line.equals("FORWARD-FAILED hung Node " + c.url + " left"));
        long failedAfter = (System.nanoTime() - killed) / 1_000_000;
        for (NodeProcess node : List.of(a, b)) {
            node.await("C's counter part removed", line -> line.equals("REMOVED count " + c.url));
            node.await("C's map part removed", line -> line.equals("REMOVED map " + c.url));
            awaitLast(node, "SUM", "SUM 0");
            awaitLast(node, "MAP", mapLine(Map.of(a.url, 0, b.url, 0)));
        }
        System.out.printf("kill -9: the pending forward failed after %d ms (failure timeout %d ms)%n", failedAfter, FAILURE_MILLIS);
        assertTrue(failedAfter < 3 * FAILURE_MILLIS + 10_000, () -> failedAfter + " ms");
    }
}
