package io.bayeux.oort.object;

import io.bayeux.oort.Oort;

/**
 * A counter per node, summed across the cloud: each node adds to its own part
 * ({@link #addAndGet}, {@link #compareAndSet}) and {@link #sum()} adds the parts held here.
 * Every change shares the node's whole value (a long), so any newer version replaces an older one.
 */
public class OortLong extends OortObject<Long> {
    public OortLong(Oort oort, String name) {
        this(oort, name, 0);
    }

    public OortLong(Oort oort, String name, long initial) {
        super(oort, name, OortObjectFactories.forLong(initial));
    }

    /** Adds to this node's part and shares it; returns this node's new value. */
    public long addAndGet(long delta) {
        return updateAndShare(current -> {
            long value = current + delta;
            return new Change<>(delta == 0 ? null : value, value);
        });
    }

    /** Adds to this node's part and shares it; returns this node's previous value. */
    public long getAndAdd(long delta) {
        return updateAndShare(current -> new Change<>(delta == 0 ? null : current + delta, current));
    }

    /** Sets this node's part to {@code value} if it is {@code expected}; shares it if so. */
    public boolean compareAndSet(long expected, long value) {
        return updateAndShare(current -> current == expected
                ? new Change<>(value, true)
                : new Change<>(null, false));
    }

    /** This node's part. */
    public long get() {
        Long local = getLocal();
        return local == null ? 0 : local;
    }

    /** The sum of every part held here: the cloud's total as this node knows it. */
    public long sum() {
        return merge(OortObjectMergers.longSum());
    }
}
