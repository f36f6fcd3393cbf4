package io.bayeux.oort;

import io.bayeux.client.BayeuxClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

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
    @RegisterExtension
    final RawWire wire = new RawWire();

    @Test
    void aRefusedOortHandshakeIsAnsweredWithTheOortExtToo() throws Exception {
        OortTesting.Node node = wire.startNode();
        FakeCometDNode fake = wire.startFake();
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
        OortTesting.Node node = wire.startNode("/chat/**");
        FakeCometDNode fake = wire.startFake();
        wire.join(List.of("/chat/**"));

        // Published on our node: the fake node, subscribed to /chat/**, receives it as CometD expects it.
        BayeuxClient local = wire.client("websocket");
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
