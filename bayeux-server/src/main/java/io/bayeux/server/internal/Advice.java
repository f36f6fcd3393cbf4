package io.bayeux.server.internal;

import io.bayeux.api.Message;

import java.util.Map;

/** Writes the {@code advice} of handshake and connect replies. */
final class Advice {
    private Advice() {
    }

    static void retry(BayeuxServerImpl server, ServerSessionImpl session, Message.Mutable reply) {
        Map<String, Object> advice = reply.getAdvice(true);
        advice.put(Message.RECONNECT_FIELD, Message.RECONNECT_RETRY_VALUE);
        advice.put(Message.INTERVAL_FIELD, session.interval());
        advice.put(Message.TIMEOUT_FIELD, session.timeout());
        if (server.config().adviseMaxInterval()) {
            advice.put(Message.MAX_INTERVAL_FIELD, session.maxInterval());
        }
    }

    /** The advice for an unknown session: handshake again, at once. */
    static void handshake(Message.Mutable reply) {
        Map<String, Object> advice = reply.getAdvice(true);
        advice.put(Message.RECONNECT_FIELD, Message.RECONNECT_HANDSHAKE_VALUE);
        advice.put(Message.INTERVAL_FIELD, 0L);
    }

    static void none(Message.Mutable reply) {
        reply.getAdvice(true).put(Message.RECONNECT_FIELD, Message.RECONNECT_NONE_VALUE);
    }
}
