package io.bayeux.server.internal;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The whole protocol through the transport SPI: handshake, subscribe, publish, receive, disconnect. */
class ProtocolTest extends ServerTestSupport {
    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void handshakeSubscribePublishReceiveDisconnect(boolean push) {
        TestClient alice = new TestClient(server, push).connected();
        TestClient bob = new TestClient(server, push).connected();
        assertEquals(true, bob.subscribe("/chat/room").get("successful"));

        var held = bob.connect();
        assertFalse(held.isDone(), "the second connect is held");

        Map<String, Object> reply = alice.publish("/chat/room", Map.of("text", "hi"));
        assertEquals(true, reply.get("successful"));

        Map<String, Object> delivered;
        if (push) {
            delivered = bob.nextPushed();
            assertFalse(held.isDone(), "over a pushing transport the connect stays held");
        } else {
            List<Map<String, Object>> messages = held.join();
            delivered = TestClient.deliveries(messages, "/chat/room").get(0);
            Map<String, Object> connectReply = messages.get(messages.size() - 1);
            assertEquals("/meta/connect", connectReply.get("channel"), "the connect reply comes last");
        }
        assertEquals(Map.of("text", "hi"), delivered.get("data"));
        assertNull(delivered.get("clientId"), "the publisher's clientId never leaks");

        assertEquals(true, bob.disconnect().get("successful"));
        assertNull(server.getSession(bob.clientId()));
        Map<String, Object> after = alice.publish("/chat/room", "again");
        assertEquals(true, after.get("successful"));
        assertTrue(bob.pushed.stream().noneMatch(m -> "again".equals(m.get("data"))));
    }
}
