package io.bayeux.server.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How many long-polling connects each browser holds. Browsers allow few connections per
 * host, so a second tab holding a connect would starve the first: past the limit, the server
 * answers with the {@code multiple-clients} advice instead of holding.
 *
 * <p>A long-polling browser holds a connect, has it answered and holds the next one, many
 * times a second under load: its count stays in the map when it drops to zero (counting is a
 * compare-and-set on it, with no lock and no entry made or removed), and the {@link Sweeper}
 * removes the counts at zero ({@link #sweep}), so that the map keeps only the browsers seen
 * since the last sweep. What {@link #tryAcquire} counted is given back through the count it
 * returns, without looking the browser up again: a count above zero is never swept.
 */
final class BrowserHolds {
    /** A count the sweep took out of the map: whoever finds it looks again. */
    private static final int GONE = -1;
    private static final VarHandle HELD;

    static {
        try {
            HELD = MethodHandles.lookup().findVarHandle(Count.class, "held", int.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    /** What {@link #tryAcquire} gives when there is no limit: counted nowhere, released for nothing. */
    private static final Count UNCOUNTED = new Count();

    private final Map<String, Count> holds = new ConcurrentHashMap<>();

    /** One browser's held connects, or {@link #GONE}; what {@link #release} takes. */
    static final class Count {
        volatile int held = 1;
    }

    /**
     * @return the browser's count, which now counts one more connect, to be given to
     *         {@link #release} when it is over; null when the browser may hold no more
     */
    Count tryAcquire(String browserId, int max) {
        if (max < 0) {
            return UNCOUNTED;
        }
        for (;;) {
            Count count = holds.get(browserId);
            if (count == null) {
                if (max == 0) {
                    return null;
                }
                Count made = new Count();
                if (holds.putIfAbsent(browserId, made) == null) {
                    return made;
                }
                continue;
            }
            int held = count.held;
            if (held == GONE) {
                // Swept as this thread found it: the sweep removes it, or this does.
                holds.remove(browserId, count);
                continue;
            }
            if (held >= max) {
                return null;
            }
            if (HELD.compareAndSet(count, held, held + 1)) {
                return count;
            }
        }
    }

    /** A connect {@link #tryAcquire} counted in {@code count} is over. */
    void release(Count count) {
        // Above zero until this, so never swept: the count is the one in the map.
        if (count == UNCOUNTED) {
            return;
        }
        for (int held = count.held; held > 0; held = count.held) {
            if (HELD.compareAndSet(count, held, held - 1)) {
                return;
            }
        }
    }

    /** Forgets the browsers that hold no connect now: each is counted again from its next hold. */
    void sweep() {
        for (Map.Entry<String, Count> entry : holds.entrySet()) {
            Count count = entry.getValue();
            if (HELD.compareAndSet(count, 0, GONE)) {
                holds.remove(entry.getKey(), count);
            }
        }
    }

    int holds(String browserId) {
        Count count = holds.get(browserId);
        return count == null ? 0 : Math.max(0, count.held);
    }

    /** The browsers counted now, those at zero since the last sweep included. */
    int browsers() {
        return holds.size();
    }
}
