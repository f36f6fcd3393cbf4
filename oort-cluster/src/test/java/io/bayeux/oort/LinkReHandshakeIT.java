package io.bayeux.oort;

import io.bayeux.api.server.ServerSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.bayeux.oort.OortTesting.await;
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
        String second = wire.linkFake();
        wire.announceFake(second, List.of());
        assertEquals(Boolean.TRUE, fake.nextOn("/service/oort").get("successful"));
        // Our node sends its join batch on the forgotten session, and is refused.
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
}
