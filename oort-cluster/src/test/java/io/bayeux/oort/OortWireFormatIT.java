package io.bayeux.oort;

import io.bayeux.client.BayeuxClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static io.bayeux.oort.OortTesting.SECRET;
import static io.bayeux.oort.OortTesting.await;
import static io.bayeux.oort.OortTesting.publish;
import static io.bayeux.oort.OortTesting.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node that speaks CometD 8's Oort protocol byte for byte (a raw WebSocket client and a
 * scripted long-polling server) joins one of ours: the handshake and its reply carry the
 * {@code org.cometd.oort} ext, our node links back with the same ext and sends the join batch,
 * the fake node's join batch makes it a member, and observed messages flow both ways once.
 */
class OortWireFormatIT {
    private OortTesting.Node node;
    private FakeCometDNode fake;
    private final List<BayeuxClient> clients = new ArrayList<>();

    @AfterEach
    void close() {
        clients.forEach(BayeuxClient::disconnect);
        if (fake != null) {
            fake.close();
        }
        if (node != null) {
            node.close();
        }
    }

    /** Joins {@code fake} to {@code node} as CometD does; returns the fake node's session id there. */
    static String join(OortTesting.Node node, FakeCometDNode fake, List<String> observed) throws Exception {
        return join(node, fake, observed, observed);
    }

    /** Joins, checking that our node subscribes to {@code ours} and letting the fake node subscribe to {@code theirs}. */
    static String join(OortTesting.Node node, FakeCometDNode fake, List<String> ours, List<String> theirs) throws Exception {
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

        // Our node links back to the fake one, with the same ext and, as CometD's Oort links back,
        // oortAliasURL: the URL by which the fake node dialed ours.
        Map<String, Object> handshake = nextRequestWith(fake, "/meta/handshake").get(0);
        assertEquals(Map.of(Oort.EXT_OORT_FIELD, Map.of(
                "oortURL", node.url(), "oortId", node.oort().getId(), "oortSecret", Oort.hash(SECRET), "cometURL", fake.url(),
                "oortAliasURL", node.url())), handshake.get("ext"));
        // ... and, both directions up, sends its join batch in one request.
        List<Map<String, Object>> batch = nextRequestWith(fake, "/service/oort");
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

        // The fake node's own join batch, as CometD writes it.
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
        await("the fake node to join", () -> node.oort().getKnownComets().equals(Set.of(fake.url())));
        return clientId;
    }

    static List<Map<String, Object>> nextRequestWith(FakeCometDNode fake, String channel) throws InterruptedException {
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

    @Test
    void aRefusedOortHandshakeIsAnsweredWithTheOortExtToo() throws Exception {
        node = OortTesting.node(SECRET, Duration.ofSeconds(6));
        fake = new FakeCometDNode();
        // A wrong secret, then this node's own id (a node dialing itself): both refused, and, as
        // CometD's OortMembership.OortExtension.sendMeta does, the reply still carries this node's URL and id.
        for (String[] attempt : List.of(new String[]{fake.id, Oort.hash("wrong")}, new String[]{node.oort().getId(), Oort.hash(SECRET)})) {
            fake.open(node.url());
            fake.sendRaw("[{\"id\":\"" + fake.newId() + "\",\"version\":\"1.0\",\"channel\":\"/meta/handshake\","
                    + "\"supportedConnectionTypes\":[\"websocket\"],\"ext\":{\"org.cometd.oort\":{\"oortURL\":\"" + fake.url()
                    + "\",\"oortId\":\"" + attempt[0] + "\",\"oortSecret\":\"" + attempt[1] + "\",\"cometURL\":\"" + node.url() + "\"}}}]");
            Map<String, Object> reply = fake.nextOn("/meta/handshake");
            assertEquals(Boolean.FALSE, reply.get("successful"), reply::toString);
            assertEquals(Map.of(Oort.EXT_OORT_FIELD, Map.of("oortURL", node.url(), "oortId", node.oort().getId())), reply.get("ext"));
            assertEquals("none", ((Map<?, ?>) reply.get("advice")).get("reconnect"), reply::toString);
        }
        assertEquals(Set.of(), node.oort().getKnownComets());
    }

    @Test
    void aCometDNodeJoinsReceivesObservedMessagesAndIsLinkedBackOnce() throws Exception {
        node = OortTesting.node(SECRET, Duration.ofSeconds(6), "/chat/**");
        fake = new FakeCometDNode();
        join(node, fake, List.of("/chat/**"));

        // Published on our node: the fake node, subscribed to /chat/**, receives it as CometD expects it.
        BayeuxClient local = OortTesting.client(node.url(), "websocket");
        clients.add(local);
        List<Object> onNode = new CopyOnWriteArrayList<>();
        subscribe(local, "/chat/room", (ch, m) -> onNode.add(m.getData()));
        assertTrue(publish(local, "/chat/room", Map.of("text", "from ours")).isSuccessful());
        Map<String, Object> message = fake.nextOn("/chat/room");
        assertEquals(Map.of("text", "from ours"), message.get("data"));

        // Published on the fake node: pushed to our node's link, republished to our subscribers, once, and not echoed back.
        fake.pushes.add(Map.of("channel", "/chat/room", "data", Map.of("text", "from CometD")));
        await("the fake node's message on ours", () -> onNode.contains(Map.of("text", "from CometD")));
        fake.pushes.add(Map.of("channel", "/chat/room", "data", Map.of("text", "marker")));
        await("the marker on ours", () -> onNode.contains(Map.of("text", "marker")));
        assertEquals(List.of(Map.of("text", "from ours"), Map.of("text", "from CometD"), Map.of("text", "marker")), onNode);
        assertTrue(local.isConnected());
        for (Map<String, Object> m : fake.received) {
            assertTrue(!"/chat/room".equals(m.get("channel")), () -> "echoed back: " + m);
        }
        assertNotNull(node.oort().getComet(fake.url()));
        assertEquals(fake.id, node.oort().getCometId(fake.url()));
    }
}
