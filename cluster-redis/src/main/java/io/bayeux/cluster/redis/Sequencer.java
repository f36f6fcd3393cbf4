package io.bayeux.cluster.redis;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Tells, per origin node and channel, a message's first copy from a second one (a message that
 * matches two of this node's Redis subscriptions arrives twice) by the origin's sequence
 * number, and counts the gaps: messages lost on the way.
 *
 * <p>Thread-safe: the last numbers are guarded by their map; the counters are atomic.
 */
final class Sequencer {
    /** The last number seen, by {@code "<node> <channel>"}. */
    private final Map<String, Long> last = new HashMap<>();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong lost = new AtomicLong();

    /** Whether {@code envelope} is new; a second copy is counted and refused, a gap before it counted as lost. */
    boolean accept(Envelope envelope) {
        long n = envelope.seq();
        String key = envelope.node() + ' ' + envelope.channel();
        synchronized (last) {
            Long previous = last.get(key);
            if (previous != null && n <= previous) {
                duplicates.incrementAndGet();
                return false;
            }
            if (previous != null && n > previous + 1) {
                // Lost on the way: dropped by the origin, or published while this node was not subscribed.
                lost.addAndGet(n - previous - 1);
            }
            last.put(key, n);
        }
        return true;
    }

    /** Forgets the numbers of the channels this node no longer receives: the next message there starts a new count. */
    void forget(Predicate<String> received) {
        synchronized (last) {
            last.keySet().removeIf(key -> !received.test(key.substring(key.indexOf(' ') + 1)));
        }
    }

    /** Counts a message from another node lost here (the local delivery queue was full). */
    void countLost() {
        lost.incrementAndGet();
    }

    long duplicates() {
        return duplicates.get();
    }

    long lost() {
        return lost.get();
    }
}
