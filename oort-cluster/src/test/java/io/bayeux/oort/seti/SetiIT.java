package io.bayeux.oort.seti;

import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.ServerSession;
import io.bayeux.client.BayeuxClient;
import io.bayeux.oort.Closing;
import io.bayeux.oort.OortTesting;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.bayeux.oort.OortTesting.await;
import static io.bayeux.oort.OortTesting.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Seti across three nodes in one JVM: presence, messages to users wherever they are, late joiners, leaving nodes. */
class SetiIT {
    private final Closing closing = new Closing();

    @AfterEach
    void close() {
        closing.closeAll();
    }

    private record SetiNode(OortTesting.Node node, Seti seti, List<String> events) {
        String url() {
            return node.url();
        }
    }

    private SetiNode setiNode() {
        return setiNode(OortTesting.node());
    }

    private SetiNode setiNode(OortTesting.Node node) {
        closing.add(node);
        Seti seti = new Seti(node.oort());
        List<String> events = new CopyOnWriteArrayList<>();
        seti.addPresenceListener(new Seti.PresenceListener() {
            @Override
            public void presenceAdded(Event event) {
                events.add("+" + event.userId() + "@" + event.oortURL() + (event.local() ? " local" : ""));
            }

            @Override
            public void presenceRemoved(Event event) {
                events.add("-" + event.userId() + "@" + event.oortURL() + (event.local() ? " local" : ""));
            }
        });
        seti.start();
        closing.addToCloseLast(seti::stop);
        return new SetiNode(node, seti, events);
    }

    /** A user's browser: a client on a node, associated there, recording what it receives on /private. */
    private record User(BayeuxClient client, ServerSession session, List<Object> received) {
    }

    private User user(SetiNode node, String userId) throws InterruptedException {
        BayeuxClient client = OortTesting.client(node.url(), "websocket");
        closing.add(client::disconnect);
        List<Object> received = new CopyOnWriteArrayList<>();
        client.getChannel("/private").addListener((io.bayeux.api.client.ClientSessionChannel.MessageListener) (ch, m) -> received.add(m.getData()));
        ServerSession session = node.node().server().bayeux().getSession(client.getId());
        assertTrue(node.seti().associate(userId, session));
        return new User(client, session, received);
    }

    private static void awaitMesh(SetiNode... nodes) throws InterruptedException {
        for (SetiNode node : nodes) {
            await(node.url() + " in the mesh", () -> node.node().oort().getKnownComets().size() == nodes.length - 1);
        }
    }

    @Test
    void presenceAndMessagesReachUsersOnAnyNode() throws Exception {
        SetiNode a = setiNode();
        SetiNode b = setiNode();
        SetiNode c = setiNode();
        b.node().oort().observeComet(a.url());
        c.node().oort().observeComet(b.url());
        awaitMesh(a, b, c);

        User alice = user(a, "alice");
        assertTrue(a.seti().isAssociated("alice"));
        assertFalse(b.seti().isAssociated("alice"));
        await("alice present on B", () -> b.seti().isPresent("alice"));
        await("alice present on C", () -> c.seti().isPresent("alice"));
        assertEquals(List.of("+alice@" + a.url() + " local"), a.events());
        await("B's event", () -> b.events().contains("+alice@" + a.url()));

        c.seti().sendMessage("alice", "/private", Map.of("text", "hi from C"));
        await("alice gets C's message", () -> alice.received().size() == 1);
        assertEquals(Map.of("text", "hi from C"), alice.received().get(0));

        // Alice opens a second session, on B: one message from C reaches both, once each.
        User aliceOnB = user(b, "alice");
        await("alice on A and B, seen from C", () -> c.seti().getOortURLs("alice").equals(new java.util.TreeSet<>(Set.of(a.url(), b.url()))));
        c.seti().sendMessage(List.of("alice"), "/private", "twice?");
        await("both sessions", () -> alice.received().size() == 2 && aliceOnB.received().size() == 1);
        assertEquals("twice?", alice.received().get(1));
        assertEquals(List.of("twice?"), aliceOnB.received());

        // Her session on A ends: she is still present, on B.
        alice.client().disconnect();
        await("alice gone from A, seen from C", () -> c.seti().getOortURLs("alice").equals(Set.of(b.url())));
        assertTrue(c.seti().isPresent("alice"));
        assertFalse(a.seti().isAssociated("alice"));
        // A hears of her session on B from B, on the B-to-A link: nothing above waited for that link.
        await("alice, on B, seen from A", () -> a.seti().getOortURLs("alice").equals(Set.of(b.url())));
        assertTrue(a.seti().isPresent("alice"));

        // Node B stops: its users are removed everywhere.
        closeNode(b);
        await("alice absent from C", () -> !c.seti().isPresent("alice"));
        await("alice absent from A", () -> !a.seti().isPresent("alice"));
        // C's listeners hear of it after alice left C's table (Seti fires outside its lock).
        await("C's removal event", () -> c.events().contains("-alice@" + b.url()));
        assertEquals(Set.of(), c.seti().getUserIds());
    }

    private void closeNode(SetiNode node) {
        node.seti().stop();
        node.node().close();
    }

    @Test
    void aLateJoinerGetsASnapshotAndSendsOne() throws Exception {
        SetiNode a = setiNode();
        SetiNode d = setiNode();
        user(a, "alice");
        user(d, "dave");
        // Not linked yet: presence has no way from D to A.
        assertTrue(a.node().oort().getKnownComets().isEmpty());
        assertFalse(a.seti().isPresent("dave"));
        d.node().oort().observeComet(a.url());
        awaitMesh(a, d);
        await("dave seen on A", () -> a.seti().isPresent("dave"));
        await("alice seen on D", () -> d.seti().isPresent("alice"));
        assertEquals(Set.of("alice", "dave"), a.seti().getUserIds());
        assertEquals(Set.of("alice", "dave"), d.seti().getUserIds());
        d.seti().sendMessage("nobody", "/private", "lost");
        assertFalse(a.seti().isPresent("nobody"));
    }

    /**
     * A presence message of a node that already left (queued on A's thread while A removed the
     * node) is late: it is dropped, and the user never shows up again. A snapshot of that node
     * cannot be told from one it sends when it joins again: it is kept, and the node's messages
     * after it too, but they do not stay: they are removed, and the listeners told, once the node
     * has not joined again within the failure timeout, as OortObject sweeps the parts of such nodes.
     */
    @Test
    void aLatePresenceOfANodeThatLeftIsDroppedAndALateSnapshotIsSwept() throws Exception {
        SetiNode[] nodes = afterBLeftA(Duration.ofSeconds(1));
        SetiNode a = nodes[0];
        SetiNode b = nodes[1];

        // B's presence message handled after A removed B (the interleaving): dropped.
        LocalSession late = a.node().server().bayeux().newLocalSession("late-presence");
        late.handshake();
        closing.add(late::disconnect);
        // B's last word as it stopped (an empty snapshot, not alive), handled late too: B stays gone.
        Map<String, Object> stopping = presence(b.url(), List.of(), true);
        stopping.put(Seti.ALIVE_FIELD, false);
        late.getChannel(Seti.SETI_ALL_CHANNEL).publish(stopping);
        late.getChannel(Seti.SETI_ALL_CHANNEL).publish(presence(b.url(), List.of("ghost"), false));
        // Handled after it, in order: a presence of a node that never joined, which is kept.
        String elsewhere = "http://127.0.0.1:9/elsewhere";
        late.getChannel(Seti.SETI_ALL_CHANNEL).publish(presence(elsewhere, List.of("marker"), false));
        await("the marker handled on A", () -> a.events().contains("+marker@" + elsewhere));
        assertFalse(a.seti().isPresent("ghost"), a.events().toString());
        assertFalse(a.events().contains("+ghost@" + b.url()), a.events().toString());

        // A snapshot of B: kept, as when B joins again, and so is what B says after it...
        late.getChannel(Seti.SETI_ALL_CHANNEL).publish(presence(b.url(), List.of("snap"), true));
        late.getChannel(Seti.SETI_ALL_CHANNEL).publish(presence(b.url(), List.of("after"), false));
        await("snap and after on A", () -> a.events().containsAll(List.of("+snap@" + b.url(), "+after@" + b.url())));

        // ...and swept, since B does not come back: removed, and A's listeners told.
        await("B's users swept from A", () -> !a.seti().isPresent("snap") && !a.seti().isPresent("after"));
        await("A's removal events", () -> a.events().containsAll(List.of("-snap@" + b.url(), "-after@" + b.url())));
        await("the marker swept", () -> !a.seti().isPresent("marker"));
        assertEquals(Set.of(), a.seti().getUserIds());
        assertEquals(Set.of(), a.seti().getOortURLs("snap"));
    }

    /**
     * A node that left and comes back at its URL (restarted, a new id) is heard again: the users
     * it had when it joined, and the changes it makes afterwards, although the presence messages
     * of the node that left are dropped for a while.
     */
    @Test
    void aNodeBackAtItsUrlIsHeardWithItsUsersAndItsLaterChanges() throws Exception {
        Duration failureTimeout = Duration.ofSeconds(5);
        SetiNode[] nodes = afterBLeftA(failureTimeout);
        SetiNode a = nodes[0];
        SetiNode b = nodes[1];
        int port = java.net.URI.create(b.url()).getPort();

        SetiNode back = setiNode(OortTesting.node(port, true, OortTesting.SECRET, failureTimeout));
        assertEquals(b.url(), back.url());
        user(back, "frank");
        back.node().oort().observeComet(a.url());
        awaitMesh(a, back);
        await("frank, there when B came back, seen on A", () -> a.seti().isPresent("frank"));
        User erin = user(back, "erin");
        await("erin, who came after, seen on A", () -> a.seti().isPresent("erin"));
        erin.client().disconnect();
        await("erin's leaving seen on A", () -> !a.seti().isPresent("erin"));
        assertFalse(a.seti().isPresent("dave"));
    }

    /**
     * Nodes A and B, B with user dave, until B stops: A saw dave, and saw him go with B.
     *
     * @return A and B
     */
    private SetiNode[] afterBLeftA(Duration failureTimeout) throws InterruptedException {
        SetiNode a = setiNode(OortTesting.node(OortTesting.SECRET, failureTimeout));
        SetiNode b = setiNode(OortTesting.node(OortTesting.SECRET, failureTimeout));
        b.node().oort().observeComet(a.url());
        awaitMesh(a, b);
        user(b, "dave");
        await("dave seen on A", () -> a.seti().isPresent("dave"));
        closeNode(b);
        await("B left A", () -> a.node().oort().getKnownComets().isEmpty());
        // A's link thread tells Seti that B left just after it updates the known nodes.
        OortTesting.settle(a.node());
        await("dave absent from A", () -> !a.seti().isPresent("dave"));
        return new SetiNode[] {a, b};
    }

    private static Map<String, Object> presence(String url, List<String> userIds, boolean snapshot) {
        Map<String, Object> presence = new LinkedHashMap<>();
        presence.put(Seti.USER_IDS_FIELD, userIds);
        presence.put(Seti.OORT_URL_FIELD, url);
        presence.put(Seti.PRESENCE_FIELD, true);
        presence.put(Seti.REPLACE_FIELD, snapshot);
        return presence;
    }

    /**
     * Records what it is told of {@code userId} ("+user@node", "-user@node"), and holds the
     * thread that tells it of the user's first arrival until released: the interleaving of two
     * changes applied on two threads, made deterministic.
     */
    private static final class HoldingListener implements Seti.PresenceListener {
        final List<String> told = new CopyOnWriteArrayList<>();
        final CountDownLatch holding = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private final String userId;

        HoldingListener(String userId) {
            this.userId = userId;
        }

        @Override
        public void presenceAdded(Event event) {
            if (userId.equals(event.userId())) {
                if (holding.getCount() > 0) {
                    holding.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException x) {
                        Thread.currentThread().interrupt();
                    }
                }
                told.add("+" + event.userId() + "@" + event.node());
            }
        }

        @Override
        public void presenceRemoved(Event event) {
            if (userId.equals(event.userId())) {
                told.add("-" + event.userId() + "@" + event.node());
            }
        }
    }

    private Seti started(OortTesting.Node node, Seti.PresenceListener listener) {
        closing.add(node);
        Seti seti = new Seti(node.oort());
        seti.addPresenceListener(listener);
        seti.start();
        closing.addToCloseLast(seti::stop);
        return seti;
    }

    /**
     * A user associated on one application thread and disassociated on another while the
     * listeners are still being told of the association: they are told of the association,
     * then of its end, never the other way round (a tally of the users here would keep one that
     * is gone).
     */
    @Test
    void anAssociationAndItsEndOnTwoThreadsAreToldInTheOrderTheyWereMade() throws Exception {
        OortTesting.Node node = OortTesting.node();
        HoldingListener listener = new HoldingListener("alice");
        Seti seti = started(node, listener);
        LocalSession browser = node.server().bayeux().newLocalSession("alice's browser");
        browser.handshake();
        closing.add(browser::disconnect);
        ServerSession session = browser.getServerSession();

        Thread associating = new Thread(() -> seti.associate("alice", session));
        associating.start();
        assertTrue(listener.holding.await(10, TimeUnit.SECONDS), "the association is being told");
        assertTrue(seti.disassociate("alice", session));
        listener.release.countDown();
        associating.join(10_000);
        await("both told", () -> listener.told.size() >= 2);
        assertEquals(List.of("+alice@" + node.url(), "-alice@" + node.url()), listener.told);
    }

    /**
     * A presence of a node that left (as in {@link #aPresenceOfANodeThatLeftIsSwept}) is swept
     * on the sweep's thread while the listeners are still being told of its arrival on the thread
     * that brought it: they are told of its arrival, then of its removal.
     */
    @Test
    void aPresenceSweptWhileItsArrivalIsBeingToldIsToldAsRemovedAfterwards() throws Exception {
        OortTesting.Node node = OortTesting.node(OortTesting.SECRET, Duration.ofSeconds(1));
        HoldingListener listener = new HoldingListener("ghost");
        Seti seti = started(node, listener);
        String gone = "http://127.0.0.1:1/cometd";
        LocalSession late = node.server().bayeux().newLocalSession("late-presence");
        late.handshake();
        closing.add(late::disconnect);
        Map<String, Object> presence = new LinkedHashMap<>();
        presence.put(Seti.USER_IDS_FIELD, List.of("ghost"));
        presence.put(Seti.OORT_URL_FIELD, gone);
        presence.put(Seti.PRESENCE_FIELD, true);
        presence.put(Seti.REPLACE_FIELD, false);

        Thread arriving = new Thread(() -> late.getChannel(Seti.SETI_ALL_CHANNEL).publish(presence));
        arriving.start();
        assertTrue(listener.holding.await(10, TimeUnit.SECONDS), "the arrival is being told");
        await("ghost swept", () -> !seti.isPresent("ghost"));
        listener.release.countDown();
        arriving.join(10_000);
        await("both told", () -> listener.told.size() >= 2);
        assertEquals(List.of("+ghost@" + gone, "-ghost@" + gone), listener.told);
    }
}
