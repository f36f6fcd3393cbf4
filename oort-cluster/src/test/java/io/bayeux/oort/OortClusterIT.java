package io.bayeux.oort;

import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSessionChannel;
import io.bayeux.client.BayeuxClient;
import io.bayeux.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bayeux.oort.OortTesting.SECRET;
import static io.bayeux.oort.OortTesting.await;
import static io.bayeux.oort.OortTesting.awaitMesh;
import static io.bayeux.oort.OortTesting.client;
import static io.bayeux.oort.OortTesting.next;
import static io.bayeux.oort.OortTesting.publish;
import static io.bayeux.oort.OortTesting.settle;
import static io.bayeux.oort.OortTesting.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Three nodes in one JVM, on loopback: the mesh, observed channels, the secret, self-links. */
class OortClusterIT {
    private final Closing closing = new Closing();

    @AfterEach
    void close() {
        closing.closeAll();
    }

    private OortTesting.Node node(boolean websocket, String secret, String... observed) {
        OortTesting.Node node = OortTesting.node(websocket, secret, Duration.ofSeconds(6), observed);
        closing.add(node);
        return node;
    }

    private BayeuxClient connected(String url, String transport) throws InterruptedException {
        BayeuxClient client = client(url, transport);
        closing.add(client::disconnect);
        return client;
    }

    @ParameterizedTest(name = "links over {0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void meshFormsFromOneSeedEachAndPublishOnAReachesBAndCExactlyOnceInOrder(String linkTransport) throws Exception {
        boolean ws = linkTransport.equals("websocket");
        OortTesting.Node a = node(ws, SECRET, "/chat/**");
        OortTesting.Node b = node(ws, SECRET, "/chat/**");
        OortTesting.Node c = node(ws, SECRET, "/chat/**");
        b.oort().observeComet(a.url());
        c.oort().observeComet(b.url());
        awaitMesh(a, b, c);

        List<Object> onA = new CopyOnWriteArrayList<>();
        List<Object> onB = new CopyOnWriteArrayList<>();
        List<Object> onC = new CopyOnWriteArrayList<>();
        BayeuxClient clientA = connected(a.url(), "websocket");
        BayeuxClient clientB = connected(b.url(), "long-polling");
        BayeuxClient clientC = connected(c.url(), "websocket");
        assertTrue(subscribe(clientA, "/chat/room", (ch, m) -> onA.add(m.getDataAsMap().get("n"))).isSuccessful());
        assertTrue(subscribe(clientB, "/chat/room", (ch, m) -> onB.add(m.getDataAsMap().get("n"))).isSuccessful());
        assertTrue(subscribe(clientC, "/chat/room", (ch, m) -> onC.add(m.getDataAsMap().get("n"))).isSuccessful());

        BayeuxClient publisher = connected(a.url(), "websocket");
        int count = 200;
        for (int i = 0; i < count; i++) {
            publisher.getChannel("/chat/room").publish(Map.of("n", i));
        }
        assertTrue(publish(publisher, "/chat/room", Map.of("n", count)).isSuccessful());
        List<Object> expected = new ArrayList<>();
        for (int i = 0; i <= count; i++) {
            expected.add(i);
        }
        await("A's subscriber to get all", () -> onA.size() >= expected.size());
        await("B's subscriber to get all", () -> onB.size() >= expected.size());
        await("C's subscriber to get all", () -> onC.size() >= expected.size());
        // A marker published after: once it arrived everywhere, no duplicate can still be on its way.
        assertTrue(publish(publisher, "/chat/room", Map.of("n", -1)).isSuccessful());
        expected.add(-1);
        await("the marker on B", () -> onB.contains(-1));
        await("the marker on C", () -> onC.contains(-1));
        await("the marker on A", () -> onA.contains(-1));
        assertEquals(expected, onA, "A: once each, in order, no echo");
        assertEquals(expected, onB, "B: once each, in order");
        assertEquals(expected, onC, "C: once each, in order");
    }

    @Test
    void aDeepWildcardObservationNeverDuplicatesTheCloudsOwnChannelsOrLoops() throws Exception {
        OortTesting.Node a = node(true, SECRET, "/**");
        OortTesting.Node b = node(true, SECRET, "/**");
        OortTesting.Node c = node(true, SECRET, "/**");
        a.oort().observeComet(b.url());
        c.oort().observeComet(a.url());
        awaitMesh(a, b, c);
        List<Object> onC = new CopyOnWriteArrayList<>();
        List<Object> cloudOnC = new CopyOnWriteArrayList<>();
        c.oort().getOortSession().getChannel(Oort.OORT_CLOUD_CHANNEL).subscribe((ch, m) -> cloudOnC.add(m.getData()));
        BayeuxClient clientC = connected(c.url(), "websocket");
        subscribe(clientC, "/news", (ch, m) -> onC.add(m.getData()));
        BayeuxClient publisher = connected(b.url(), "websocket");
        publish(publisher, "/news", "one");
        publish(publisher, "/news", "two");
        await("both on C", () -> onC.size() >= 2);
        publish(publisher, "/news", "marker");
        await("the marker on C", () -> onC.contains("marker"));
        assertEquals(List.of("one", "two", "marker"), onC);
        // Nothing published on C's /oort/cloud came from another node's /** observation.
        assertTrue(cloudOnC.isEmpty(), () -> "republished cloud messages: " + cloudOnC);
    }

    @Test
    void cometListenersSeeJoinedThenLeftWhenANodeStops() throws Exception {
        OortTesting.Node a = node(true, SECRET);
        OortTesting.Node b = node(true, SECRET);
        BlockingQueue<String> events = new LinkedBlockingQueue<>();
        a.oort().addCometListener(new CometListener() {
            @Override
            public void cometJoined(Event event) {
                events.add("joined " + event.cometURL() + " " + event.cometId());
            }

            @Override
            public void cometLeft(Event event) {
                events.add("left " + event.cometURL() + " " + event.cometId());
            }
        });
        a.oort().observeComet(b.url());
        String bId = b.oort().getId();
        assertEquals("joined " + b.url() + " " + bId, next(events));
        assertEquals(bId, a.oort().getCometId(b.url()));
        b.close();
        assertEquals("left " + b.url() + " " + bId, next(events));
        await("A to forget B", () -> a.oort().getKnownComets().isEmpty());
    }

    @Test
    void aWrongSecretIsRefusedWithTheOortExtInTheReply() throws Exception {
        OortTesting.Node a = node(true, SECRET);
        OortTesting.Node intruder = node(true, "not the secret");
        // Refused, it dials again after a back-off: its second refusal shows the first did not let it in.
        AtomicInteger refusals = new AtomicInteger();
        intruder.oort().observeComet(a.url()).getClient().getChannel("/meta/handshake").addListener(
                (ClientSessionChannel.MessageListener) (channel, message) -> {
                    if (!message.isSuccessful()) {
                        refusals.incrementAndGet();
                    }
                });

        BayeuxClient raw = new BayeuxClient(a.url());
        closing.add(raw::close);
        BlockingQueue<Message> replies = new LinkedBlockingQueue<>();
        raw.handshake(Map.of("ext", Map.of(Oort.EXT_OORT_FIELD, Map.of(
                Oort.EXT_OORT_URL_FIELD, "http://127.0.0.1:1/cometd",
                Oort.EXT_OORT_ID_FIELD, "someone",
                Oort.EXT_OORT_SECRET_FIELD, Oort.hash("guess"),
                Oort.EXT_COMET_URL_FIELD, a.url()))), replies::add);
        Message reply = next(replies);
        assertFalse(reply.isSuccessful());
        assertEquals("none", reply.getAdvice().get("reconnect"));
        Map<String, Object> ext = Oort.oortExt(reply);
        assertEquals(Map.of(Oort.EXT_OORT_URL_FIELD, a.url(), Oort.EXT_OORT_ID_FIELD, a.oort().getId()), ext);
        // The intruder with the wrong secret never joined, refused again when it dialed again.
        Await.until(OortTesting.WAIT, () -> refusals.get() >= 2,
                () -> "the intruder refused twice; refused " + refusals.get() + " times, A knows " + a.oort().getKnownComets());
        settle(a, intruder);
        assertTrue(a.oort().getKnownComets().isEmpty());
        assertTrue(intruder.oort().getKnownComets().isEmpty());
        assertTrue(a.server().bayeux().getSessions().stream().noneMatch(a.oort()::isOort));
    }

    @Test
    void theRightSecretIsAcceptedWithTheOortExtInTheReply() throws Exception {
        OortTesting.Node a = node(true, SECRET);
        BayeuxClient raw = new BayeuxClient(a.url());
        closing.add(raw::close);
        BlockingQueue<Message> replies = new LinkedBlockingQueue<>();
        raw.handshake(Map.of("ext", Map.of(Oort.EXT_OORT_FIELD, Map.of(
                Oort.EXT_OORT_URL_FIELD, "http://127.0.0.1:1/cometd",
                Oort.EXT_OORT_ID_FIELD, "someone",
                Oort.EXT_OORT_SECRET_FIELD, Oort.hash(SECRET),
                Oort.EXT_COMET_URL_FIELD, a.url()))), replies::add);
        Message reply = next(replies);
        assertTrue(reply.isSuccessful(), reply::toString);
        assertEquals(Map.of(Oort.EXT_OORT_URL_FIELD, a.url(), Oort.EXT_OORT_ID_FIELD, a.oort().getId()), Oort.oortExt(reply));
        assertTrue(a.oort().isOort(a.server().bayeux().getSession(reply.getClientId())));
    }

    @Test
    void aLinkToItselfIsRefusedWithReconnectNone() throws Exception {
        OortTesting.Node a = node(true, SECRET);
        // The same node under another name: only its id in the handshake reply gives it away.
        String alias = a.url().replace("127.0.0.1", "localhost");
        assertTrue(a.oort().observeComet(alias) != null);
        await("the self link to be dropped", () -> a.oort().getComet(alias) == null);
        assertNull(a.oort().observeComet(alias), "never dialed again");
        assertNull(a.oort().observeComet(a.url()));

        BayeuxClient raw = new BayeuxClient(a.url());
        closing.add(raw::close);
        BlockingQueue<Message> replies = new LinkedBlockingQueue<>();
        raw.handshake(Map.of("ext", Map.of(Oort.EXT_OORT_FIELD, Map.of(
                Oort.EXT_OORT_URL_FIELD, a.url(),
                Oort.EXT_OORT_ID_FIELD, a.oort().getId(),
                Oort.EXT_OORT_SECRET_FIELD, Oort.hash(SECRET),
                Oort.EXT_COMET_URL_FIELD, a.url()))), replies::add);
        Message reply = next(replies);
        assertFalse(reply.isSuccessful());
        assertEquals("none", reply.getAdvice().get("reconnect"));
        assertEquals(a.oort().getId(), Oort.oortExt(reply).get(Oort.EXT_OORT_ID_FIELD));
        assertTrue(a.oort().getKnownComets().isEmpty());
    }

    @Test
    void duplicateLinksAreRefused() throws Exception {
        OortTesting.Node a = node(true, SECRET);
        OortTesting.Node b = node(true, SECRET);
        a.oort().observeComet(b.url());
        b.oort().observeComet(a.url());
        awaitMesh(a, b);
        await("one link each way", () -> a.server().bayeux().getSessions().stream().filter(a.oort()::isOort).count() == 1
                && b.server().bayeux().getSessions().stream().filter(b.oort()::isOort).count() == 1);
        List<String> left = new CopyOnWriteArrayList<>();
        for (OortTesting.Node node : List.of(a, b)) {
            node.oort().addCometListener(new CometListener() {
                @Override
                public void cometJoined(Event event) {
                }

                @Override
                public void cometLeft(Event event) {
                    left.add(node.url() + " saw " + event.cometURL() + " leave");
                }
            });
        }
        // The same node under another name: refused without disturbing the link that exists.
        String alias = b.url().replace("127.0.0.1", "localhost");
        a.oort().observeComet(alias);
        await("the alias to be known as the same node", () -> a.oort().getComet(alias) == a.oort().getComet(b.url()));
        // B handled the duplicate's handshake before A had the reply; the duplicate session ends there, and A closes its client.
        await("the duplicate session gone from B", () -> b.server().bayeux().getSessions().stream().filter(b.oort()::isOort).count() == 1);
        settle(a, b);
        assertEquals(List.of(), left);
        assertEquals(1, a.server().bayeux().getSessions().stream().filter(a.oort()::isOort).count());
        assertEquals(1, b.server().bayeux().getSessions().stream().filter(b.oort()::isOort).count());
    }

    @Test
    void theCloudsChannelsAreClosedToOrdinaryClients() throws Exception {
        OortTesting.Node a = node(true, SECRET, "/chat/**");
        OortTesting.Node b = node(true, SECRET, "/chat/**");
        BayeuxClient client = connected(a.url(), "websocket");
        for (String channel : List.of("/oort/cloud", "/oort/x", "/seti/all", "/seti/abc", "/oort/**", "/seti/*")) {
            Message reply = subscribe(client, channel, (ch, m) -> { });
            assertFalse(reply.isSuccessful(), () -> "subscribed to " + channel + ": " + reply);
        }
        for (String channel : List.of("/oort/cloud", "/service/oort", "/service/oort/x", "/seti/all", "/seti/abc")) {
            Message reply = publish(client, channel, List.of("http://evil.example/cometd"));
            assertFalse(reply.isSuccessful(), () -> "published on " + channel + ": " + reply);
        }
        // A /** subscriber sees ordinary messages, never the cloud's own.
        List<String> seen = new CopyOnWriteArrayList<>();
        assertTrue(subscribe(client, "/**", (ch, m) -> seen.add(m.getChannel())).isSuccessful());
        a.oort().observeComet(b.url());
        awaitMesh(a, b);
        a.server().bayeux().createChannelIfAbsent(Oort.OORT_CLOUD_CHANNEL).getReference().publish(null, List.of(b.url()));
        publish(client, "/chat/x", "hello");
        await("the chat message", () -> seen.contains("/chat/x"));
        assertTrue(seen.stream().noneMatch(Oort::isInternal), seen::toString);
        assertEquals(Set.of(b.url()), a.oort().getKnownComets());
    }
}
