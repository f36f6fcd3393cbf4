package io.bayeux.oort;

import io.bayeux.client.BayeuxClient;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static io.bayeux.oort.OortTesting.SECRET;
import static io.bayeux.oort.OortTesting.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One node of ours facing a {@link FakeCometDNode} over the raw wire, for the wire-format ITs:
 * {@code @RegisterExtension final RawWire wire = new RawWire();}. What a test starts through it
 * (the node, the fake node, clients) and what it hands to {@link #closeAfter} is closed after
 * the test, the last started first. {@link #join} scripts the fake node's join as CometD 8's
 * Oort writes it and checks our node's side of it. Used from a test's own thread only.
 */
final class RawWire implements AfterEachCallback {
    private final Closing closing = new Closing();
    private OortTesting.Node node;
    private FakeCometDNode fake;

    /** Starts our node (the test secret, a 6 s failure timeout) observing {@code observed}. */
    OortTesting.Node startNode(String... observed) {
        node = closeAfter(OortTesting.node(SECRET, Duration.ofSeconds(6), observed));
        return node;
    }

    /** Starts the fake CometD node. */
    FakeCometDNode startFake() throws IOException {
        fake = closeAfter(new FakeCometDNode());
        return fake;
    }

    /** A client of our node over {@code transport}, handshaken and connected; disconnected after the test. */
    BayeuxClient client(String transport) throws InterruptedException {
        BayeuxClient client = OortTesting.client(node().url(), transport);
        closeAfter(client::disconnect);
        return client;
    }

    /** Closes {@code closeable} after the test, before what was started earlier. */
    <T extends AutoCloseable> T closeAfter(T closeable) {
        closing.add(closeable);
        return closeable;
    }

    OortTesting.Node node() {
        if (node == null) {
            throw new IllegalStateException("No node started");
        }
        return node;
    }

    FakeCometDNode fake() {
        if (fake == null) {
            throw new IllegalStateException("No fake node started");
        }
        return fake;
    }

    /** Joins the fake node to ours as CometD does; returns the fake node's session id there. */
    String join(List<String> observed) throws Exception {
        return join(observed, observed);
    }

    /** Joins, checking that our node subscribes to {@code ours} and letting the fake node subscribe to {@code theirs}. */
    String join(List<String> ours, List<String> theirs) throws Exception {
        OortTesting.Node node = node();
        FakeCometDNode fake = fake();
        String clientId = linkFake();
        // Our node links back to the fake one, with the same ext and, as CometD's Oort links back,
        // oortAliasURL: the URL by which the fake node dialed ours.
        Map<String, Object> handshake = nextRequestWith("/meta/handshake").get(0);
        assertEquals(Map.of(Oort.EXT_OORT_FIELD, Map.of(
                "oortURL", node.url(), "oortId", node.oort().getId(), "oortSecret", Oort.hash(SECRET), "cometURL", fake.url(),
                "oortAliasURL", node.url())), handshake.get("ext"));
        // ... and, both directions up, sends its join batch in one request.
        List<Map<String, Object>> batch = nextRequestWith("/service/oort");
        List<Object> channels = new ArrayList<>();
        for (Map<String, Object> message : batch) {
            channels.add(message.get("channel"));
        }
        List<Object> expected = new ArrayList<>(List.of("/meta/subscribe", "/meta/subscribe"));
        ours.forEach(o -> expected.add("/meta/subscribe"));
        expected.addAll(List.of("/oort/cloud", "/service/oort"));
        // Subscriptions first (the cloud's, then the observed channels), then the cloud list, then the announcement.
        assertEquals(expected.subList(expected.size() - 2, expected.size()), channels.subList(channels.size() - 2, channels.size()), batch::toString);
        List<Object> subscriptions = new ArrayList<>();
        for (Map<String, Object> message : batch) {
            if ("/meta/subscribe".equals(message.get("channel"))) {
                subscriptions.add(message.get("subscription"));
            }
        }
        assertEquals("/oort/cloud", subscriptions.get(0));
        assertTrue(subscriptions.containsAll(ours), subscriptions::toString);
        // As CometD's OortComet.open(): the URLs of the nodes ours has handshaken with (the fake one), never its own.
        Map<String, Object> cloud = batch.get(batch.size() - 2);
        assertEquals(List.of(fake.url()), cloud.get("data"), cloud::toString);
        assertEquals(Map.of("oortId", node.oort().getId(), "oortURL", node.url()), batch.get(batch.size() - 1).get("data"));
        assertEquals("fake-session", batch.get(batch.size() - 1).get("clientId"));

        announceFake(clientId, theirs);
        await("the fake node to join", () -> node.oort().getKnownComets().equals(Set.of(fake.url())));
        return clientId;
    }

    /**
     * The fake node links to ours (a new WebSocket, CometD 8's handshake with its id, then its
     * first connect); returns its session id on our node.
     */
    String linkFake() throws Exception {
        OortTesting.Node node = node();
        FakeCometDNode fake = fake();
        fake.open(node.url());
        // As CometD 8's OortComet writes its handshake.
        fake.sendRaw("[{\"id\":\"" + fake.newId() + "\",\"version\":\"1.0\",\"minimumVersion\":\"1.0\",\"channel\":\"/meta/handshake\","
                + "\"supportedConnectionTypes\":[\"websocket\",\"long-polling\"],\"advice\":{\"timeout\":60000,\"interval\":0},"
                + "\"ext\":{\"org.cometd.oort\":{\"oortURL\":\"" + fake.url() + "\",\"oortId\":\"" + fake.id + "\",\"oortSecret\":\""
                + Oort.hash(SECRET) + "\",\"cometURL\":\"" + node.url() + "\"}}}]");
        Map<String, Object> reply = fake.nextOn("/meta/handshake");
        assertEquals(Boolean.TRUE, reply.get("successful"), reply::toString);
        assertEquals(Map.of(Oort.EXT_OORT_FIELD, Map.of("oortURL", node.url(), "oortId", node.oort().getId())), reply.get("ext"));
        String clientId = (String) reply.get("clientId");
        fake.connect(clientId);
        assertEquals(Boolean.TRUE, fake.nextOn("/meta/connect").get("successful"));
        return clientId;
    }

    /** The fake node's join batch on its session {@code clientId}, as CometD writes it, subscribing to {@code theirs}. */
    void announceFake(String clientId, List<String> theirs) {
        OortTesting.Node node = node();
        FakeCometDNode fake = fake();
        StringBuilder json = new StringBuilder("[{\"id\":\"" + fake.newId() + "\",\"channel\":\"/meta/subscribe\",\"subscription\":\"/oort/cloud\",\"clientId\":\"" + clientId + "\"}");
        for (String channel : theirs) {
            json.append(",{\"id\":\"").append(fake.newId()).append("\",\"channel\":\"/meta/subscribe\",\"subscription\":\"").append(channel)
                    .append("\",\"clientId\":\"").append(clientId).append("\"}");
        }
        json.append(",{\"id\":\"").append(fake.newId()).append("\",\"channel\":\"/oort/cloud\",\"data\":[\"").append(node.url())
                .append("\"],\"clientId\":\"").append(clientId).append("\"}");
        json.append(",{\"id\":\"").append(fake.newId()).append("\",\"channel\":\"/service/oort\",\"data\":{\"oortId\":\"").append(fake.id)
                .append("\",\"oortURL\":\"").append(fake.url()).append("\"},\"clientId\":\"").append(clientId).append("\"}]");
        fake.sendRaw(json.toString());
    }

    /** The next request the fake node's server received that has a message on {@code channel}; those before it are passed over. */
    List<Map<String, Object>> nextRequestWith(String channel) throws InterruptedException {
        FakeCometDNode fake = fake();
        long deadline = System.nanoTime() + OortTesting.WAIT.toNanos();
        while (true) {
            List<Map<String, Object>> request = fake.requests.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (request == null) {
                throw new AssertionError("No request with " + channel);
            }
            for (Map<String, Object> message : request) {
                if (channel.equals(message.get("channel"))) {
                    return request;
                }
            }
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        closing.closeAll();
        node = null;
        fake = null;
    }
}
