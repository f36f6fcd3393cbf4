package io.bayeux.server.internal;

import io.bayeux.api.Position;
import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.spi.HistoryEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * This server's side of the histories an engine keeps: for each channel, a cursor that says
 * which message of the engine's history this server delivered last. Messages come from the
 * engine in the order of their offsets and are fanned out under the cursor's monitor, each
 * once: a message that comes twice (two subscriptions in the engine) is dropped; one that
 * comes after a gap (this server was not receiving yet, or the engine lost a notification)
 * first has the gap filled from the engine's history. A subscription replays from the engine
 * and joins under the same monitor, up to the cursor: what follows comes live.
 */
final class EngineHistories {
    private static final Logger LOG = LoggerFactory.getLogger(EngineHistories.class);

    /** Guarded by its own monitor. */
    private static final class Cursor {
        /** Whether {@link #delivered} is this server's place in the history; false until a first message or subscription. */
        boolean valid;
        String epoch;
        long delivered;
    }

    private final BayeuxServerImpl server;
    private final Map<String, Cursor> cursors = new ConcurrentHashMap<>();
    private final AtomicLong unrecoverable = new AtomicLong();

    EngineHistories(BayeuxServerImpl server) {
        this.server = server;
    }

    /** Messages this server could not deliver because the engine no longer kept them when it filled a gap. */
    long unrecoverable() {
        return unrecoverable.get();
    }

    private Cursor cursor(String channel) {
        return cursors.computeIfAbsent(channel, name -> new Cursor());
    }

    /** A message from the engine, at {@code position}: delivered here in order, once. */
    void deliver(HistoryEngine engine, String channel, ServerMessage.Mutable message, Position position, HistoryPolicy policy) {
        Cursor cursor = cursor(channel);
        synchronized (cursor) {
            if (!cursor.valid || !cursor.epoch.equals(position.epoch())) {
                cursor.valid = true;
                cursor.epoch = position.epoch();
                cursor.delivered = position.offset() - 1;
            }
            if (position.offset() <= cursor.delivered) {
                return;
            }
            if (position.offset() > cursor.delivered + 1) {
                fill(engine, channel, cursor, policy, position.offset());
            }
            fanOut(channel, message, position, policy, cursor);
        }
    }

    /** The engine now receives {@code channel}: what was published while it did not is delivered from its history. */
    void catchUp(HistoryEngine engine, String channel, HistoryPolicy policy) {
        Cursor cursor = cursors.get(channel);
        if (cursor == null) {
            return;
        }
        synchronized (cursor) {
            if (cursor.valid) {
                fill(engine, channel, cursor, policy, Long.MAX_VALUE);
            }
        }
    }

    /** The engine stopped receiving some channels: their cursors no longer say where this server is. */
    void receptionChanged(HistoryEngine engine) {
        for (Map.Entry<String, Cursor> entry : cursors.entrySet()) {
            if (!engine.receives(entry.getKey())) {
                synchronized (entry.getValue()) {
                    entry.getValue().valid = false;
                }
            }
        }
    }

    /** Under the cursor's monitor: delivers what the engine keeps after the cursor and before {@code before}. */
    private void fill(HistoryEngine engine, String channel, Cursor cursor, HistoryPolicy policy, long before) {
        HistoryEngine.Slice slice;
        try {
            slice = engine.read(channel, cursor.delivered, policy);
        } catch (IllegalStateException x) {
            LOG.warn("Cannot fill the gap after {} on {}: {}", cursor.delivered, channel, x.getMessage());
            return;
        }
        if (!slice.epoch().equals(cursor.epoch)) {
            return;
        }
        long missing = Math.min(before - 1, slice.top()) - cursor.delivered;
        if (slice.first() > cursor.delivered + 1 && missing > 0) {
            long lost = Math.min(slice.first(), before) - cursor.delivered - 1;
            unrecoverable.addAndGet(lost);
            LOG.warn("{} messages of {} after {} were {} before this server could deliver them", lost, channel, cursor.delivered, slice.evicted());
        }
        for (HistoryEngine.Entry entry : slice.messages()) {
            if (entry.offset() > cursor.delivered && entry.offset() < before) {
                fanOut(channel, entry.message(), new Position(entry.offset(), slice.epoch()), policy, cursor);
            }
        }
    }

    private void fanOut(String channel, ServerMessage.Mutable message, Position position, HistoryPolicy policy, Cursor cursor) {
        HistoryStore.stamp(message, position, policy);
        server.broadcaster().fanOutFromEngine(channel, message);
        cursor.delivered = position.offset();
    }

    /** A subscription to a channel the engine keeps the history of: see {@link Recovery}. */
    Recovery.Decision subscribe(HistoryEngine engine, ServerSessionImpl session, ServerChannelImpl channel, Recovery.Request request,
                                ServerMessage message) {
        String name = request.channel();
        Cursor cursor = cursor(name);
        ServerChannelImpl joined;
        Recovery.Decision decision;
        synchronized (cursor) {
            long after = request.replayId() != null && request.replayId() == Recovery.ALL_RETAINED ? Long.MIN_VALUE
                    : request.replayId() != null && request.replayId() >= 0 ? request.replayId()
                    : request.from() != null ? request.from().offset() : Long.MAX_VALUE;
            HistoryEngine.Slice slice = engine.read(name, after, request.policy());
            if (!cursor.valid || !cursor.epoch.equals(slice.epoch())) {
                // This server starts delivering the channel from the engine's last message.
                cursor.valid = true;
                cursor.epoch = slice.epoch();
                cursor.delivered = slice.top();
            }
            decision = Recovery.decide(request, cursor.epoch, cursor.delivered, slice.top(), slice.first(), slice.evicted());
            if (decision.error() != null) {
                return decision;
            }
            if (decision.replays()) {
                for (HistoryEngine.Entry entry : Recovery.within(slice.messages(), decision.after(), decision.upTo())) {
                    ServerMessage.Mutable replayed = entry.message();
                    HistoryStore.stamp(replayed, new Position(entry.offset(), slice.epoch()), request.policy());
                    session.deliverReplayed(Broadcaster.freeze(replayed));
                }
            }
            joined = channel.join(session);
        }
        if (joined != null) {
            joined.notifySubscribed(session, message);
        }
        return decision;
    }
}
