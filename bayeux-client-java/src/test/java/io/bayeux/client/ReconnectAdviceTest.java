package io.bayeux.client;

import io.bayeux.api.Message;
import io.bayeux.common.HashMapMessage;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link ReconnectAdvice}: the server's advice as the client keeps it, and the back-off. */
class ReconnectAdviceTest {
    private final ReconnectAdvice advice = new ReconnectAdvice(Duration.ofMillis(100), Duration.ofMillis(250));

    private static Message reply(Map<String, Object> advice) {
        HashMapMessage reply = new HashMapMessage();
        reply.put(Message.ADVICE_FIELD, advice);
        return reply;
    }

    @Test
    void theBackoffGrowsByItsIncrementUpToItsMaximumAndAResetClearsIt() {
        assertEquals(100, advice.nextBackoff());
        assertEquals(200, advice.nextBackoff());
        assertEquals(250, advice.nextBackoff());
        assertEquals(250, advice.backoff());
        advice.resetBackoff();
        assertEquals(0, advice.backoff());
        assertEquals(100, advice.nextBackoff());
    }

    @Test
    void intervalAndTimeoutAreTakenFromTheAdviceAndKeptWhenAReplyHasNone() {
        assertEquals(0, advice.timeout(), "no timeout before the server says");
        advice.take(reply(Map.of(Message.INTERVAL_FIELD, 500, Message.TIMEOUT_FIELD, 20_000)));
        advice.take(new HashMapMessage());
        assertEquals(500, advice.interval());
        assertEquals(20_000, advice.timeout());
        advice.take(reply(Map.of(Message.INTERVAL_FIELD, -5)));
        assertEquals(0, advice.interval(), "a negative interval counts as none");
    }

    @Test
    void reconnectIsReadFromTheAdvice() {
        assertTrue(ReconnectAdvice.isReconnectNone(reply(Map.of(Message.RECONNECT_FIELD, Message.RECONNECT_NONE_VALUE))));
        assertFalse(ReconnectAdvice.isReconnectNone(reply(Map.of(Message.RECONNECT_FIELD, Message.RECONNECT_HANDSHAKE_VALUE))));
        assertNull(ReconnectAdvice.reconnect(new HashMapMessage()));
    }
}
