package io.bayeux.server.internal;

import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.api.server.ServerMessage;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;

/**
 * The history of one channel, in memory: its epoch, the offset of its last message, and the
 * messages it still keeps (at most the policy's size, each for at most its ttl). Every method
 * but the constructor must be called holding this object's monitor, under which the channel's
 * publishes are also fanned out: a subscription that replays from here and then joins the
 * channel's subscribers sees each message exactly once.
 */
final class ChannelHistory {
    /** Why the messages after an offset are not all here. */
    enum Gap {
        /** Dropped to keep the size. */
        TRIMMED("trimmed"),
        /** Dropped because they were older than the ttl. */
        EXPIRED("expired"),
        /** The offset is past the last message: it belongs to another history. */
        AHEAD("ahead");

        final String reason;

        Gap(String reason) {
            this.reason = reason;
        }
    }

    private record Entry(long offset, long at, ServerMessage message) {
    }

    final String channel;
    final String epoch;
    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    /** The offset of the last message published, or one less than the first offset before any. */
    private long top;
    /** Why the entries older than the first one kept are gone. */
    private Gap lastEviction = Gap.TRIMMED;
    /** When the last message was published, or the history made (scheduler time, ms). */
    private long lastActivity;

    ChannelHistory(String channel, String epoch, long firstOffset, long now) {
        this.channel = channel;
        this.epoch = epoch;
        this.top = firstOffset - 1;
        this.lastActivity = now;
    }

    /** The offset of the last message published in this history. */
    long top() {
        return top;
    }

    /** The offset the next message gets. */
    long next() {
        return top + 1;
    }

    /** Keeps the message just published at {@link #next()}, within the policy's bounds. */
    void append(ServerMessage message, long now, HistoryPolicy policy) {
        top++;
        lastActivity = now;
        entries.addLast(new Entry(top, now, message));
        while (entries.size() > policy.size()) {
            entries.pollFirst();
            lastEviction = Gap.TRIMMED;
        }
        expire(now, policy);
    }

    /** Drops what is older than the policy's ttl. */
    void expire(long now, HistoryPolicy policy) {
        long oldest = now - policy.ttl().toMillis();
        while (!entries.isEmpty() && entries.peekFirst().at < oldest) {
            entries.pollFirst();
            lastEviction = Gap.EXPIRED;
        }
    }

    /** Whether nothing is kept and nothing was published for {@code idleMillis}: it may be forgotten. */
    boolean isIdle(long now, long idleMillis) {
        return entries.isEmpty() && now - lastActivity >= idleMillis;
    }

    /**
     * Why the messages after {@code offset} cannot all be given, or null when they can (with
     * {@link #after}). Expired messages are dropped first.
     */
    Gap gapAfter(long offset, long now, HistoryPolicy policy) {
        expire(now, policy);
        if (offset > top) {
            return Gap.AHEAD;
        }
        if (offset == top) {
            return null;
        }
        long first = entries.isEmpty() ? top + 1 : entries.peekFirst().offset;
        return offset + 1 >= first ? null : lastEviction;
    }

    /** The messages kept after {@code offset}, oldest first. */
    List<ServerMessage> after(long offset) {
        ArrayDeque<ServerMessage> result = new ArrayDeque<>();
        Iterator<Entry> it = entries.descendingIterator();
        while (it.hasNext()) {
            Entry entry = it.next();
            if (entry.offset <= offset) {
                break;
            }
            result.addFirst(entry.message);
        }
        return List.copyOf(result);
    }

    /** Every message kept, oldest first. */
    List<ServerMessage> all(long now, HistoryPolicy policy) {
        expire(now, policy);
        return after(Long.MIN_VALUE);
    }

    /** The offset before the first message kept: {@link #after} it gives them all. */
    long beforeFirst() {
        return entries.isEmpty() ? top : entries.peekFirst().offset - 1;
    }

    /** Why the messages before the first one kept are gone: {@code trimmed} or {@code expired}. */
    String evicted() {
        return lastEviction.reason;
    }

    @Override
    public String toString() {
        return "ChannelHistory[" + channel + ", epoch=" + epoch + ", top=" + top + ", kept=" + entries.size() + "]";
    }
}
