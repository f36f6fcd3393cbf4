package io.bayeux.api.server;

import java.time.Duration;
import java.util.Objects;

/**
 * How much of a channel's past the server keeps, so that a client that drops or falls behind
 * recovers what it missed: at most {@code size} messages per channel, each for at most
 * {@code ttl}. Set on a channel or a wildcard channel with
 * {@link ConfigurableServerChannel#setHistory}; a message takes the policy of its channel, or
 * else of the most specific wildcard channel that has one.
 *
 * @param size      the messages kept per channel, at least 1
 * @param ttl       how long each message is kept, positive
 * @param replayIds whether the channel speaks the {@code replay} dialect of Salesforce's
 *                  Streaming API ({@code data.event.replayId}, {@code ext.replay} on subscribe)
 *                  instead of positions in {@code ext.position}
 */
public record HistoryPolicy(int size, Duration ttl, boolean replayIds) {
    public HistoryPolicy {
        if (size < 1) {
            throw new IllegalArgumentException("history size must be at least 1: " + size);
        }
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("history ttl must be positive: " + ttl);
        }
    }

    /** A history of {@code size} messages kept {@code ttl} each, with positions. */
    public static HistoryPolicy of(int size, Duration ttl) {
        return new HistoryPolicy(size, ttl, false);
    }

    /** The same history, in the {@code replay} dialect. */
    public HistoryPolicy withReplayIds() {
        return new HistoryPolicy(size, ttl, true);
    }
}
