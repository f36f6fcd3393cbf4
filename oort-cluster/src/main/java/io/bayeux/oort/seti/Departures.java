package io.bayeux.oort.seti;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which other nodes' presence a {@link Seti} no longer trusts: a node that left is "departed"
 * until it sends a snapshot again (other than the empty one of a node stopping) or a failure
 * timeout passes (its other presence messages are late ones, dropped); a node with users here
 * that has not been joined for a failure timeout is "stale" (its users are removed). Times are System.nanoTime(). Not thread-safe: guarded by
 * the Seti's lock.
 */
final class Departures {
    /** Since when each other node with users here has been seen not joined. */
    private final Map<String, Long> unknownSince = new HashMap<>();
    /** When each node that left did. */
    private final Map<String, Long> departedAt = new HashMap<>();

    /**
     * Whether a presence message of the node at {@code url} is to be applied: a snapshot
     * ({@code replace}) always is, and ends the node's departure; another message is not while
     * the node is departed.
     */
    boolean accepts(String url, boolean replace) {
        if (replace) {
            departedAt.remove(url);
            return true;
        }
        return !departedAt.containsKey(url);
    }

    /** The users of the node at {@code url} were removed; {@code left}: because it left (rather than never joined). */
    void removed(String url, boolean left, long now) {
        unknownSince.remove(url);
        if (left) {
            departedAt.put(url, now);
        }
    }

    /**
     * Forgets the departures older than {@code limitNanos}, notes which of {@code nodes} (those
     * with users here) are not in {@code known}, and returns those seen not joined for longer than
     * {@code limitNanos}.
     */
    List<String> stale(Set<String> nodes, Set<String> known, long now, long limitNanos) {
        departedAt.values().removeIf(left -> now - left > limitNanos);
        unknownSince.keySet().retainAll(nodes);
        List<String> stale = new ArrayList<>();
        for (String url : nodes) {
            if (known.contains(url)) {
                unknownSince.remove(url);
            } else {
                Long since = unknownSince.putIfAbsent(url, now);
                if (since != null && now - since > limitNanos) {
                    stale.add(url);
                }
            }
        }
        return stale;
    }

    void clear() {
        unknownSince.clear();
        departedAt.clear();
    }
}
