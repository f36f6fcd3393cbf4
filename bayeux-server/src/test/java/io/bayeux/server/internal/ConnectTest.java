package io.bayeux.server.internal;

import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code /meta/connect}: unknown sessions, the first connect, holds and their release. */
class ConnectTest extends ServerTestSupport {
    @ParameterizedTest(name = "channel={0}")
    @ValueSource(strings = {"/meta/connect", "/meta/subscribe", "/meta/disconnect", "/chat/room"})
    void unknownClientIdGetsSessionUnknownWithHandshakeAdvice(String channel) {
        TestClient client = new TestClient(server, false);
        client.clientId("nosuchclient");
        Map<String, Object> message = channel.equals("/meta/subscribe")
                ? Map.of("channel", channel, "subscription", "/a")
                : channel.startsWith("/meta") ? Map.of("channel", channel) : Map.of("channel", channel, "data", "x");
        Map<String, Object> reply = TestClient.reply(client.call(message), channel);
        assertEquals(false, reply.get("successful"));
        assertEquals("402::session_unknown", reply.get("error"));
        assertEquals(Map.of("reconnect", "handshake", "interval", 0), reply.get("advice"));
    }

    @Test
    void firstConnectIsAnsweredAtOnceAndLaterOnesAreHeldUntilTheTimeout() {
        TestClient client = new TestClient(server, false);
        client.handshake(null);
        CompletableFuture<List<Map<String, Object>>> first = client.connect();
        assertTrue(first.isDone(), "first connect answered at once");
        Map<String, Object> reply = TestClient.reply(first.join(), "/meta/connect");
        assertEquals(true, reply.get("successful"));
        assertEquals(client.clientId(), reply.get("clientId"));
        @SuppressWarnings("unchecked")
        Map<String, Object> advice = (Map<String, Object>) reply.get("advice");
        assertEquals("retry", advice.get("reconnect"));
        assertEquals(20000, ((Number) advice.get("timeout")).intValue());
        assertEquals(0, ((Number) advice.get("interval")).intValue());

        CompletableFuture<List<Map<String, Object>>> second = client.connect();
        scheduler.advance(19_999);
        assertFalse(second.isDone(), "held until the timeout");
        scheduler.advance(1);
        assertTrue(second.isDone());
        Map<String, Object> heldReply = TestClient.reply(second.join(), "/meta/connect");
        assertEquals(true, heldReply.get("successful"));
        assertEquals(client.clientId(), heldReply.get("clientId"));
        assertNull(heldReply.get("advice"), "the client keeps the first connect's advice: not sent again");
    }

    @Test
    void theAdviceGoesAgainWhenTheSessionsSettingsChangeOnceAndNotAfter() {
        TestClient client = new TestClient(server, false).connected();
        server.getSession(client.clientId()).setTimeout(5_000);
        CompletableFuture<List<Map<String, Object>>> changed = client.connect();
        scheduler.advance(5_000);
        Map<String, Object> reply = TestClient.reply(changed.join(), "/meta/connect");
        assertEquals(Map.of("reconnect", "retry", "interval", 0, "timeout", 5000), normalize(reply.get("advice")),
                "set during the hold: the reply tells the new timeout");

        CompletableFuture<List<Map<String, Object>>> next = client.connect();
        scheduler.advance(5_000);
        assertNull(TestClient.reply(next.join(), "/meta/connect").get("advice"), "told once");

        CompletableFuture<List<Map<String, Object>>> held = client.connect();
        server.getSession(client.clientId()).setInterval(250);
        scheduler.advance(5_000);
        assertEquals(Map.of("reconnect", "retry", "interval", 250, "timeout", 5000),
                normalize(TestClient.reply(held.join(), "/meta/connect").get("advice")), "changed while held: told in that reply");
    }

    @Test
    void theAdviceGoesAgainWhenTheSessionConnectsOverAnotherTransport() {
        TestClient polling = new TestClient(server, false).connected();
        TestClient pushing = new TestClient(server, true);
        pushing.clientId(polling.clientId());
        CompletableFuture<List<Map<String, Object>>> moved = pushing.connect();
        scheduler.advance(20_000);
        assertTrue(moved.isDone(), "held until the timeout");
        assertEquals(Map.of("reconnect", "retry", "interval", 0, "timeout", 20000),
                normalize(TestClient.reply(moved.join(), "/meta/connect").get("advice")), "the first reply over the new transport advises");
        CompletableFuture<List<Map<String, Object>>> next = pushing.connect();
        scheduler.advance(20_000);
        assertNull(TestClient.reply(next.join(), "/meta/connect").get("advice"), "and the next does not");
    }

    @Test
    void afterAMultipleClientsAdviceTheNextConnectReplyAdvisesTheIntervalAgain() {
        TestClient first = new TestClient(server, "browser-1").connected();
        TestClient second = new TestClient(server, "browser-1").connected();
        CompletableFuture<List<Map<String, Object>>> held = first.connect();
        assertFalse(held.isDone(), "the browser's one hold");
        Map<String, Object> refused = TestClient.reply(second.connect().join(), "/meta/connect");
        Map<?, ?> refusedAdvice = (Map<?, ?>) refused.get("advice");
        assertEquals(true, refusedAdvice.get("multiple-clients"), refused.toString());
        assertTrue(((Number) refusedAdvice.get("interval")).longValue() > 0, refused.toString());

        first.disconnect();
        assertTrue(held.isDone(), "the first tab left: the browser holds no connect");
        CompletableFuture<List<Map<String, Object>>> again = second.connect();
        assertFalse(again.isDone(), "held now");
        scheduler.advance(20_000);
        assertEquals(Map.of("reconnect", "retry", "interval", 0, "timeout", 20000),
                normalize(TestClient.reply(again.join(), "/meta/connect").get("advice")), "the interval set back to 0");
    }

    @ParameterizedTest(name = "id={0}")
    @ValueSource(strings = {"held-1", "42", "042"})
    void aHeldConnectsReplyAndAHeartBeatListenerAddedDuringTheHoldSeeTheConnectAsItWasSent(String id) {
        TestClient client = new TestClient(server, false).connected();
        Map<String, Object> connect = new java.util.LinkedHashMap<>(client.connectMessage());
        connect.put("id", id);
        CompletableFuture<List<Map<String, Object>>> held = client.send(connect);
        assertFalse(held.isDone());
        List<ServerMessage> resumed = new java.util.concurrent.CopyOnWriteArrayList<>();
        server.getSession(client.clientId()).addListener(new ServerSession.HeartBeatListener() {
            @Override
            public void onResumed(ServerSession session, ServerMessage message, boolean timeout) {
                resumed.add(message);
            }
        });
        scheduler.advance(20_000);
        assertTrue(held.isDone());
        Map<String, Object> reply = TestClient.reply(held.join(), "/meta/connect");
        assertEquals(id, reply.get("id"));
        assertEquals(client.clientId(), reply.get("clientId"));
        assertEquals(true, reply.get("successful"));
        assertNull(reply.get("advice"), "the first connect's reply advised the client already");

        assertEquals(1, resumed.size());
        ServerMessage message = resumed.get(0);
        assertEquals(Map.of("channel", "/meta/connect", "clientId", client.clientId(), "connectionType", client.transportName(), "id", id),
                Map.copyOf(message));
    }

    /** Numbers as ints, to compare advice parsed from JSON with literals. */
    private static Map<String, Object> normalize(Object advice) {
        Map<String, Object> out = new java.util.HashMap<>();
        ((Map<?, ?>) advice).forEach((k, v) -> out.put((String) k, v instanceof Number n ? n.intValue() : v));
        return out;
    }

    @Test
    void clientAdviceCanShortenTheHold() {
        TestClient client = new TestClient(server, false).connected();
        var connect = client.send(Map.of("channel", "/meta/connect", "connectionType", "long-polling", "advice", Map.of("timeout", 0)));
        assertTrue(connect.isDone());
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void queuedMessagesGoOutBeforeTheConnectReply(boolean push) {
        TestClient client = new TestClient(server, push).connected();
        client.subscribe("/news");
        ServerSession session = server.getSession(client.clientId());
        session.setMetaConnectDeliveryOnly(true);
        server.getChannel("/news").publish(null, "one");
        server.getChannel("/news").publish(null, "two");
        List<Map<String, Object>> messages = client.connect().join();
        assertEquals(3, messages.size(), messages.toString());
        assertEquals("one", messages.get(0).get("data"));
        assertEquals("two", messages.get(1).get("data"));
        assertEquals("/meta/connect", messages.get(2).get("channel"));
    }

    @Test
    void aMessagePublishedDuringTheHoldReleasesItAtOnce() {
        TestClient client = new TestClient(server, false).connected();
        client.subscribe("/news");
        var held = client.connect();
        assertFalse(held.isDone());
        server.getChannel("/news").publish(null, "flash");
        assertTrue(held.isDone(), "released without waiting for the timeout");
        assertEquals("flash", TestClient.deliveries(held.join(), "/news").get(0).get("data"));
    }

    @Test
    void overAPushingTransportQueuedMessagesArePushedNotCarriedByTheConnectReply() {
        TestClient client = new TestClient(server, true).connected();
        client.subscribe("/news");
        var held = client.connect();
        server.getChannel("/news").publish(null, "pushed");
        assertEquals("pushed", client.nextPushed().get("data"));
        assertFalse(held.isDone());
        scheduler.advance(20_000);
        assertEquals(List.of("/meta/connect"), held.join().stream().map(m -> m.get("channel")).toList(),
                "the session's flusher is the one writer of queued messages");
    }

    @Test
    void aSecondConnectReleasesTheFirst() {
        TestClient client = new TestClient(server, false).connected();
        var first = client.connect();
        assertFalse(first.isDone());
        var second = client.connect();
        assertTrue(first.isDone(), "the first connect is answered");
        assertEquals(true, TestClient.reply(first.join(), "/meta/connect").get("successful"));
        assertFalse(second.isDone(), "the second one is held in its place");
        scheduler.advance(20_000);
        assertTrue(second.isDone());
    }

    @Test
    void aSessionWithAHeldConnectNeverExpires() {
        TestClient client = new TestClient(server, false).connected();
        var held = client.connect();
        // Far beyond maxInterval, sweeping every second, with the hold renewed at each timeout.
        for (int i = 0; i < 10; i++) {
            scheduler.advance(20_000);
            assertTrue(held.isDone());
            assertNotNull(server.getSession(client.clientId()), "alive after " + (i + 1) * 20 + " s");
            held = client.connect();
        }
    }

    @Test
    void aSessionWithoutConnectExpiresAfterMaxIntervalAndRemoveListenersAreToldOfTheTimeout() {
        TestClient client = new TestClient(server, false).connected();
        ServerSession session = server.getSession(client.clientId());
        List<Boolean> removed = new java.util.concurrent.CopyOnWriteArrayList<>();
        session.addListener((ServerSession.RemoveListener) (s, m, timeout) -> removed.add(timeout));
        scheduler.advance(9_000);
        assertNotNull(server.getSession(client.clientId()));
        scheduler.advance(2_000);
        assertNull(server.getSession(client.clientId()));
        assertEquals(List.of(true), removed);
        Map<String, Object> reply = TestClient.reply(client.connect().join(), "/meta/connect");
        assertEquals("402::session_unknown", reply.get("error"));
    }

    @Test
    void cancellingAHeldConnectReArmsExpiry() {
        TestClient client = new TestClient(server, false).connected();
        List<List<?>> replies = new java.util.ArrayList<>();
        var cancel = client.connection().handle(
                List.of(message("/meta/connect", client.clientId())), replies::add);
        scheduler.advance(5_000);
        assertTrue(cancel.cancel(), "the held batch is cancelled");
        assertTrue(replies.isEmpty(), "a cancelled batch is not answered");
        scheduler.advance(9_000);
        assertNotNull(server.getSession(client.clientId()));
        scheduler.advance(2_000);
        assertNull(server.getSession(client.clientId()), "expired maxInterval after the cancel");
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void closingTheConnectionReArmsExpiry(boolean push) {
        TestClient client = new TestClient(server, push).connected();
        var held = client.connect();
        assertFalse(held.isDone());
        scheduler.advance(15_000);
        client.connection().close();
        assertFalse(held.isDone(), "nothing is written to a closed connection");
        scheduler.advance(9_000);
        assertNotNull(server.getSession(client.clientId()));
        scheduler.advance(2_000);
        assertNull(server.getSession(client.clientId()));
    }

    @Test
    void disconnectAnswersTheHeldConnectAdvisingNoReconnect() {
        TestClient client = new TestClient(server, false).connected();
        var held = client.connect();
        TestClient other = new TestClient(server, false);
        other.clientId(client.clientId());
        assertEquals(true, other.disconnect().get("successful"));
        assertTrue(held.isDone());
        Map<String, Object> reply = TestClient.reply(held.join(), "/meta/connect");
        assertEquals(Map.of("reconnect", "none"), reply.get("advice"));
    }

    private static ServerMessageImpl message(String channel, String clientId) {
        ServerMessageImpl message = new ServerMessageImpl();
        message.setChannel(channel);
        message.setClientId(clientId);
        message.setId("99");
        return message;
    }
}
