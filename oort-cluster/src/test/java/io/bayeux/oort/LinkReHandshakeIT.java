package io.bayeux.oort;

import io.bayeux.api.server.ServerSession;
import io.bayeux.oort.object.OortMap;
import io.bayeux.oort.object.OortObject;
import io.bayeux.oort.object.OortStringMap;
import io.bayeux.oort.object.Info;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.bayeux.oort.OortTesting.SECRET;
import static io.bayeux.oort.OortTesting.await;
import static io.bayeux.oort.OortTesting.awaitMesh;
import static io.bayeux.oort.OortTesting.settle;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A link that comes back on new sessions without the other node restarting, in the order a
 * healed partition can bring: the other node's session here expired (it leaves, once), the
 * other node forgot this one's session too but this node's comet has not heard yet (its connect
 * is held), and the other node's link comes back first and announces itself. The node does not
 * join on its forgotten session (it would leave again when its comet re-handshakes): it joins
 * once, when its comet's new session is acknowledged. A node that restarts (a new id) still
 * leaves and joins again.
 */
class LinkReHandshakeIT {
    @RegisterExtension
    final RawWire wire = new RawWire();

    private static CometListener recorder(List<String> events) {
        return new CometListener() {
            @Override
            public void cometJoined(Event event) {
                events.add("joined " + event.cometId());
            }

            @Override
            public void cometLeft(Event event) {
                events.add("left " + event.cometId());
            }
        };
    }

    @Test
    void aLinkBackOnNewSessionsAfterAnExpiryIsOneDepartureAndOneJoin() throws Exception {
        OortTesting.Node node = wire.startNode();
        FakeCometDNode fake = wire.startFake();
        List<String> events = new CopyOnWriteArrayList<>();
        node.oort().addCometListener(recorder(events));
        String first = wire.join(List.of());
        String joined = "joined " + fake.id;
        String left = "left " + fake.id;
        await("the join told", () -> events.equals(List.of(joined)));

        // The fake node's session here ends, as an expiry ends it: it leaves.
        ServerSession session = node.server().bayeux().getSession(first);
        node.server().bayeux().removeSession(session);
        await("the departure told", () -> events.equals(List.of(joined, left)));

        // It forgot our comet's session too (our comet's connect is held there), and its own link comes back first.
        fake.forget();
        // What the fake node received so far is passed over: the replies awaited next are to its new link.
        fake.received.clear();
        String second = wire.linkFake();
        wire.announceFake(second, List.of());
        // Our node took the announcement (it answered it), and sent its own join batch on the forgotten session.
        assertEquals(Boolean.TRUE, fake.nextOn("/service/oort").get("successful"));
        wire.nextRequestWith("/service/oort");
        settle(node);
        assertEquals(List.of(joined, left), events, "no join on a session the other node forgot");
        assertEquals(Set.of(), node.oort().getKnownComets());

        // Our comet hears of it, handshakes again (the same node: same id), and the link joins once.
        fake.release();
        await("the join on the new session", () -> node.oort().getKnownComets().equals(Set.of(fake.url())));
        settle(node);
        assertEquals(List.of(joined, left, joined), events);
    }

    @Test
    void aNodeRestartedWithANewIdLeavesAndItsPartsAreReSynced() throws Exception {
        Duration failure = Duration.ofSeconds(3);
        OortTesting.Node a = wire.closeAfter(OortTesting.node(0, true, SECRET, failure));
        OortTesting.Node b = wire.closeAfter(OortTesting.node(0, true, SECRET, failure));
        List<String> events = new CopyOnWriteArrayList<>();
        a.oort().addCometListener(recorder(events));
        OortStringMap<Object> mapA = started(new OortStringMap<>(a.oort(), "rooms"));
        List<String> entriesOnA = new CopyOnWriteArrayList<>();
        mapA.addEntryListener(new OortMap.EntryListener<>() {
            @Override
            public void onPut(Info<Map<String, Object>> info, OortMap.Entry<String, Object> entry) {
                entriesOnA.add("put " + entry.key());
            }

            @Override
            public void onRemoved(Info<Map<String, Object>> info, OortMap.Entry<String, Object> entry) {
                entriesOnA.add("removed " + entry.key());
            }
        });
        OortStringMap<Object> mapB = started(new OortStringMap<>(b.oort(), "rooms"));
        a.oort().observeComet(b.url());
        awaitMesh(a, b);
        mapB.putAndShare("kitchen", "b");
        await("B's entry on A", () -> "b".equals(mapA.find("kitchen")));
        String oldId = b.oort().getId();

        // B stops and starts again at its URL: a new id, a new object without the old entry.
        int port = b.server().port();
        mapB.stop();
        b.close();
        OortTesting.Node restarted = wire.closeAfter(OortTesting.node(port, true, SECRET, failure));
        String newId = restarted.oort().getId();
        OortStringMap<Object> mapRestarted = started(new OortStringMap<>(restarted.oort(), "rooms"));
        mapRestarted.putAndShare("hall", "b again");
        await("the restarted node's part on A", () -> "b again".equals(mapA.find("hall")) && mapA.find("kitchen") == null);
        awaitMesh(a, restarted);
        settle(a);
        assertEquals(List.of("joined " + oldId, "left " + oldId, "joined " + newId), events);
        assertEquals(List.of("put kitchen", "removed kitchen", "put hall"), entriesOnA);
    }

    private <O extends OortObject<?>> O started(O object) {
        object.start();
        wire.closeAfter(object::stop);
        return object;
    }
}
