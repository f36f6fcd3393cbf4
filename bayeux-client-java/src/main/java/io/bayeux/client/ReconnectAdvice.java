package io.bayeux.client;

import io.bayeux.api.Message;

import java.time.Duration;
import java.util.Map;

/**
 * What the server advised a client, the {@code interval} between connects and the
 * {@code timeout} for which it holds one, and the client's back-off after failures: it grows
 * by an increment up to a maximum and a success resets it.
 *
 * <p>Not thread-safe: the lock of the client that owns it guards it.
 */
final class ReconnectAdvice {
    private final long incrementMillis;
    private final long maxMillis;
    private long backoff;
    private long interval;
    /** Until the server says: -1. */
    private long timeout = -1;

    ReconnectAdvice(Duration increment, Duration max) {
        this.incrementMillis = increment.toMillis();
        this.maxMillis = max.toMillis();
    }

    /** Takes the {@code interval} and {@code timeout} of the reply's advice, if it has them. */
    void take(Message reply) {
        Map<String, Object> advice = reply.getAdvice();
        if (advice != null) {
            if (advice.get(Message.INTERVAL_FIELD) instanceof Number n) {
                interval = Math.max(0, n.longValue());
            }
            if (advice.get(Message.TIMEOUT_FIELD) instanceof Number n) {
                timeout = Math.max(0, n.longValue());
            }
        }
    }

    /** The {@code reconnect} of the reply's advice, or null. */
    static Object reconnect(Message reply) {
        Map<String, Object> advice = reply.getAdvice();
        return advice == null ? null : advice.get(Message.RECONNECT_FIELD);
    }

    static boolean isReconnectNone(Message reply) {
        return Message.RECONNECT_NONE_VALUE.equals(reconnect(reply));
    }

    /** The next back-off, in ms: one increment longer than the last, up to the maximum. */
    long nextBackoff() {
        backoff = Math.min(backoff + incrementMillis, maxMillis);
        return backoff;
    }

    void resetBackoff() {
        backoff = 0;
    }

    /** The current back-off, in ms. */
    long backoff() {
        return backoff;
    }

    /** The advised wait before the next connect, in ms. */
    long interval() {
        return interval;
    }

    /** The advised long-poll hold, in ms; 0 until the server said. */
    long timeout() {
        return Math.max(timeout, 0);
    }
}
