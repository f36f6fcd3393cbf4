package io.bayeux.server.internal;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link SessionExpiry}: when a session without a connect goes, on the hand-driven clock (default maxInterval 10 s). */
class SessionExpiryTest extends ServerTestSupport {
    @Test
    void aMessageOtherThanAConnectGivesTheSessionAWholeMaxIntervalFromNow() {
        TestClient client = new TestClient(server, false).connected();
        scheduler.advance(8_000);
        assertEquals(true, client.publish("/chat", "still here").get("successful"));
        scheduler.advance(9_000);
        assertNotNull(server.getSession(client.clientId()), "10 s from the publish, not from the connect");
        scheduler.advance(2_000);
        assertNull(server.getSession(client.clientId()));
    }

    @Test
    void aConnectionTheServerHoldsBackKeepsItsSessionAndGetsAWholeMaxIntervalWhenReadAgain() {
        TestClient client = new TestClient(server, true).connected();
        client.connection().heldBack(true);
        scheduler.advance(15_000);
        assertNotNull(server.getSession(client.clientId()), "its next connect may be waiting in the connection");
        client.connection().heldBack(false);
        scheduler.advance(9_000);
        assertNotNull(server.getSession(client.clientId()), "a whole maxInterval from the end of the hold back");
        scheduler.advance(2_000);
        assertNull(server.getSession(client.clientId()));
    }

    @Test
    void aConnectThatAListenerDeletesEndsLikeAnyConnectAndTheSessionOfAClientThatLeavesThenExpires() {
        TestClient client = new TestClient(server, false).connected();
        server.createChannelIfAbsent(io.bayeux.api.Channel.META_CONNECT).getReference()
                .addListener((io.bayeux.api.server.ServerChannel.MessageListener) (from, channel, message) -> false);
        Map<String, Object> reply = TestClient.reply(client.connect().join(), "/meta/connect");
        assertEquals("404::message_deleted", reply.get("error"), reply.toString());
        // The client goes away without another word.
        scheduler.advance(9_000);
        assertNotNull(server.getSession(client.clientId()));
        scheduler.advance(2_000);
        assertNull(server.getSession(client.clientId()), "expired maxInterval after the deleted connect's reply");
    }

    @Test
    void theLogContextSaysHowLongSinceTheLastConnectEndedAndWhatWaits() {
        TestClient client = new TestClient(server, false).connected();
        ServerSessionImpl session = server.sessionImpl(client.clientId());
        session.deliver(null, "/private", "waiting", io.bayeux.api.Promise.noop());
        scheduler.advance(500);
        String context = session.expiry().context(scheduler.now());
        assertTrue(context.startsWith("500 ms since its last connect ended, 1 queued, no push connection"), context);
    }
}
