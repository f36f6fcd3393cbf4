package io.bayeux.server.internal;

import io.bayeux.api.Position;
import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.api.server.ServerMessage;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * The histories of a server's channels, in memory. Each channel's history is made with its
 * first message (or the first subscription that asks for its position), with a new epoch and a
 * first offset taken from the wall clock (milliseconds × 1000), so that an offset of a history
 * that was lost (a restart, or one forgotten while idle) is never taken for one of the new
 * history, even by a client of the {@code replay} dialect, which knows no epochs.
 */
final class HistoryStore {
    /** An empty history is forgotten after this long without messages, or its ttl if longer. */
    static final Duration IDLE_RETENTION = Duration.ofHours(1);
    /** The field of a replay-dialect message's {@code data} that holds its {@code replayId}. */
    static final String EVENT_FIELD = "event";
    static final String REPLAY_ID_FIELD = "replayId";
    static final String PAYLOAD_FIELD = "payload";

    private final Map<String, ChannelHistory> histories = new ConcurrentHashMap<>();
    private final Random random;
    private final LongSupplier wallClock;

    HistoryStore(Random random, LongSupplier wallClock) {
        this.random = random;
        this.wallClock = wallClock;
    }

    /** The history of {@code channel}, made now if it has none. */
    ChannelHistory history(String channel, long now) {
        return histories.computeIfAbsent(channel, name -> {
            String epoch = Long.toString(random.nextLong() >>> 16, 36);
            return new ChannelHistory(name, epoch, wallClock.getAsLong() * 1000, now);
        });
    }

    /** Whether {@code history} is still the one of its channel (not forgotten by a sweep); call it holding its monitor. */
    boolean isCurrent(ChannelHistory history) {
        return histories.get(history.channel) == history;
    }

    /**
     * Marks a message about to be published at {@code history.next()}: in {@code ext.position},
     * or in the {@code replay} dialect in {@code data.event.replayId}. The message is not
     * frozen yet.
     */
    static void stamp(ServerMessage.Mutable message, ChannelHistory history, HistoryPolicy policy) {
        stamp(message, new Position(history.next(), history.epoch), policy);
    }

    /** Marks a message with its position, in {@code ext.position} or in the {@code replay} dialect. */
    static void stamp(ServerMessage.Mutable message, Position position, HistoryPolicy policy) {
        long offset = position.offset();
        if (policy.replayIds()) {
            Object data = message.getData();
            Map<String, Object> stamped = new LinkedHashMap<>();
            if (data instanceof Map<?, ?> map) {
                map.forEach((key, value) -> stamped.put(String.valueOf(key), value));
            } else if (data != null) {
                stamped.put(PAYLOAD_FIELD, data);
            }
            Map<String, Object> event = new LinkedHashMap<>();
            if (stamped.get(EVENT_FIELD) instanceof Map<?, ?> existing) {
                existing.forEach((key, value) -> event.put(String.valueOf(key), value));
            }
            event.put(REPLAY_ID_FIELD, offset);
            stamped.put(EVENT_FIELD, event);
            message.setData(stamped);
        } else {
            message.getExt(true).put(Position.EXT_FIELD, position.toMap());
        }
    }

    /** Forgets the expired messages, and the histories that have stayed empty and idle long enough. */
    void sweep(long now, Function<String, HistoryPolicy> policies) {
        for (ChannelHistory history : histories.values()) {
            HistoryPolicy policy = policies.apply(history.channel);
            synchronized (history) {
                long idle = Math.max(IDLE_RETENTION.toMillis(), policy == null ? 0 : policy.ttl().toMillis());
                if (policy != null) {
                    history.expire(now, policy);
                }
                if (policy == null || history.isIdle(now, idle)) {
                    histories.remove(history.channel, history);
                }
            }
        }
    }

    int size() {
        return histories.size();
    }
}
