package io.bayeux.oort;

import io.bayeux.api.Position;
import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ext.RecoveryExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bayeux.oort.OortTesting.await;
import static io.bayeux.oort.OortTesting.awaitMesh;
import static io.bayeux.oort.OortTesting.client;
import static io.bayeux.oort.OortTesting.next;
import static io.bayeux.oort.OortTesting.publish;
import static io.bayeux.oort.OortTesting.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * History on the Oort mesh: each node keeps its channels' histories with positions of its own,
 * so a client recovers on the node it left, and on another node is told it cannot, with
 * nothing replayed.
 */
class OortHistoryIT {
    private static final String ROOM = "/chat/room";
    private final Closing closing = new Closing();

    @AfterEach
    void close() {
        closing.closeAll();
    }

    private OortTesting.Node node() {
        OortTesting.Node node = OortTesting.node("/chat/**");
        closing.add(node);
        node.server().bayeux().createChannelIfAbsent("/chat/**").getReference().setHistory(HistoryPolicy.of(100, Duration.ofMinutes(5)));
        return node;
    }

    private BayeuxClient connected(String url, String transport) throws InterruptedException {
        BayeuxClient client = client(url, transport);
        closing.add(client::disconnect);
        return client;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void aClientRecoversOnTheNodeItLeftAndIsToldItCannotOnAnother(String transport) throws Exception {
        OortTesting.Node a = node();
        OortTesting.Node b = node();
        b.oort().observeComet(a.url());
        awaitMesh(a, b);
        BayeuxClient publisher = connected(b.url(), "websocket");
        // A watcher on A tells what reached A (and so its histories) from B.
        List<Object> onAWatch = new CopyOnWriteArrayList<>();
        BayeuxClient watcher = connected(a.url(), "websocket");
        assertTrue(subscribe(watcher, ROOM, (channel, message) -> onAWatch.add(message.getDataAsMap().get("n"))).isSuccessful());
        // A's link subscribes to B's /chat/** as the mesh forms: publish until a message comes through.
        AtomicInteger next = new AtomicInteger();
        while (onAWatch.isEmpty() && next.get() < 200) {
            assertTrue(publish(publisher, ROOM, Map.of("n", next.getAndIncrement())).isSuccessful());
        }
        await("a message from B on A", () -> !onAWatch.isEmpty());

        RecoveryExtension first = new RecoveryExtension();
        BayeuxClient onA = connected(a.url(), transport);
        onA.addExtension(first);
        List<Object> seen = new CopyOnWriteArrayList<>();
        assertTrue(subscribe(onA, ROOM, (channel, message) -> seen.add(message.getDataAsMap().get("n"))).isSuccessful());
        int one = next.getAndIncrement();
        assertTrue(publish(publisher, ROOM, Map.of("n", one)).isSuccessful());
        await("the message on A", () -> seen.contains(one));
        Position last = first.positions().get(ROOM);
        assertNotNull(last);
        onA.disconnect();
        assertTrue(onA.waitFor(OortTesting.WAIT, BayeuxClient.State.DISCONNECTED));
        int missedFrom = next.get();
        for (int i = 0; i < 3; i++) {
            assertTrue(publish(publisher, ROOM, Map.of("n", next.getAndIncrement())).isSuccessful());
        }
        await("the three on A", () -> onAWatch.contains(missedFrom + 2));

        // Back on B: its positions are its own, another epoch.
        BlockingQueue<RecoveryExtension.Outcome> onBOutcomes = new LinkedBlockingQueue<>();
        RecoveryExtension elsewhere = new RecoveryExtension();
        elsewhere.setPosition(ROOM, last);
        elsewhere.addListener((channel, outcome) -> onBOutcomes.add(outcome));
        BayeuxClient onB = connected(b.url(), transport);
        onB.addExtension(elsewhere);
        List<Object> onBSeen = new CopyOnWriteArrayList<>();
        assertTrue(subscribe(onB, ROOM, (channel, message) -> onBSeen.add(message.getDataAsMap().get("n"))).isSuccessful());
        assertEquals(new RecoveryExtension.Outcome(false, 0, "epoch"), next(onBOutcomes));

        // Back on A: recovered, exactly the three.
        BlockingQueue<RecoveryExtension.Outcome> onAOutcomes = new LinkedBlockingQueue<>();
        RecoveryExtension same = new RecoveryExtension();
        same.setPosition(ROOM, last);
        same.addListener((channel, outcome) -> onAOutcomes.add(outcome));
        BayeuxClient backOnA = connected(a.url(), transport);
        backOnA.addExtension(same);
        List<Object> recovered = new CopyOnWriteArrayList<>();
        assertTrue(subscribe(backOnA, ROOM, (channel, message) -> recovered.add(message.getDataAsMap().get("n"))).isSuccessful());
        assertEquals(new RecoveryExtension.Outcome(true, 3, null), next(onAOutcomes));
        await("the three replayed on A", () -> recovered.size() >= 3);
        assertEquals(List.of(missedFrom, missedFrom + 1, missedFrom + 2), List.copyOf(recovered));
        assertEquals(List.of(), List.copyOf(onBSeen), "nothing replayed on B");
    }
}
