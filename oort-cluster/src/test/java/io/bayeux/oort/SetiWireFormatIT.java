package io.bayeux.oort;

import io.bayeux.api.client.ClientSessionChannel;
import io.bayeux.client.BayeuxClient;
import io.bayeux.oort.seti.Seti;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.bayeux.oort.OortTesting.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seti's messages as CometD 8 sends and expects them, with a node posing as CometD's: the
 * presence snapshot on join, presence changes on {@code /seti/all}, {@code sendMessage} on the
 * node's {@code /seti/<id>} or on {@code /seti/all}, and messages from the other node to a
 * user here.
 */
class SetiWireFormatIT {
    @RegisterExtension
    final RawWire wire = new RawWire();

    private static Map<String, Object> map(Object... pairs) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put((String) pairs[i], pairs[i + 1]);
        }
        return map;
    }

    @Test
    void presenceAndSetiMessagesAreCometDs() throws Exception {
        OortTesting.Node node = wire.startNode();
        Seti seti = new Seti(node.oort());
        wire.closeAfter(seti::stop);
        seti.start();
        assertEquals("/seti/" + node.url().replaceAll("[^A-Za-z0-9]+", "_"), Seti.setiChannel(node.url()));
        assertEquals("http_127_0_0_1_8080_cometd", Seti.setiId("http://127.0.0.1:8080/cometd"));
        FakeCometDNode fake = wire.startFake();
        String fakeChannel = "/seti/" + fake.url().replaceAll("[^A-Za-z0-9]+", "_");
        wire.join(List.of("/seti/all", Seti.setiChannel(node.url())), List.of("/seti/all", fakeChannel));

        // The fake node subscribed to /seti/all here: it is sent our users, "alive" asking for its own back
        // (CometD's Seti.InitialStateListener) ...
        Map<String, Object> initial = fake.nextOn("/seti/all");
        assertEquals(map("userIds", List.of(), "oortURL", node.url(), "presence", true, "replace", true, "alive", true), initial.get("data"));
        // ... and, joined, our snapshot on its channel, without "alive" (CometD's Seti.CometListener.cometJoined).
        Map<String, Object> snapshot = fake.nextOn(fakeChannel);
        assertEquals(map("userIds", List.of(), "oortURL", node.url(), "presence", true, "replace", true), snapshot.get("data"));

        // A user arrives here: a presence change on /seti/all.
        BayeuxClient alice = wire.client("websocket");
        List<Object> toAlice = new CopyOnWriteArrayList<>();
        alice.getChannel("/private").addListener((ClientSessionChannel.MessageListener) (ch, m) -> toAlice.add(m.getData()));
        seti.associate("alice", node.server().bayeux().getSession(alice.getId()));
        Map<String, Object> presence = fake.nextOn("/seti/all");
        assertEquals(map("userIds", List.of("alice"), "oortURL", node.url(), "presence", true, "replace", false), presence.get("data"));

        // The other node says bob is there: a message for bob goes on that node's channel.
        fake.pushes.add(map("channel", "/seti/all", "data", map("userIds", List.of("bob"), "oortURL", fake.url(), "presence", true, "replace", false)));
        await("bob present", () -> seti.isPresent("bob"));
        seti.sendMessage("bob", "/private", map("text", "hi bob"));
        Map<String, Object> toBob = fake.nextOn(fakeChannel);
        assertEquals(map("userId", "bob", "channel", "/private", "setiId", seti.getId(), "data", map("text", "hi bob")), toBob.get("data"));

        // A user present nowhere known: on /seti/all.
        seti.sendMessage("ghost", "/private", "boo");
        Map<String, Object> toGhost = fake.nextOn("/seti/all");
        assertEquals(map("userId", "ghost", "channel", "/private", "setiId", seti.getId(), "data", "boo"), toGhost.get("data"));

        // The other node sends to alice, here, on our channel.
        fake.pushes.add(map("channel", Seti.setiChannel(node.url()), "data",
                map("userId", "alice", "channel", "/private", "setiId", Seti.setiId(fake.url()), "data", map("text", "hi alice"))));
        await("alice's message", () -> toAlice.contains(map("text", "hi alice")));

        // The other node's snapshot replaces what it had; its alive flag asks for ours back.
        fake.pushes.add(map("channel", Seti.setiChannel(node.url()), "data",
                map("userIds", List.of("carol"), "oortURL", fake.url(), "presence", true, "replace", true, "alive", true)));
        await("carol present, bob not", () -> seti.isPresent("carol") && !seti.isPresent("bob"));
        Map<String, Object> answer = fake.nextOn(fakeChannel);
        assertEquals(map("userIds", List.of("alice"), "oortURL", node.url(), "presence", true, "replace", true), answer.get("data"));

        // The user leaves: presence false.
        alice.disconnect();
        Map<String, Object> gone = fake.nextOn("/seti/all");
        assertEquals(map("userIds", List.of("alice"), "oortURL", node.url(), "presence", false, "replace", false), gone.get("data"));
        assertTrue(seti.getUserIds().contains("carol"));

        // Seti stops: an empty snapshot on /seti/all, "alive" false (CometD's removeAssociationsAndPresences).
        seti.stop();
        Map<String, Object> stopped = fake.nextOn("/seti/all");
        assertEquals(map("userIds", List.of(), "oortURL", node.url(), "presence", true, "replace", true, "alive", false), stopped.get("data"));
    }
}
