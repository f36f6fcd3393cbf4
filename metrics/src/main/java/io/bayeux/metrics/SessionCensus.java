package io.bayeux.metrics;

import io.bayeux.server.internal.ServerCensus;

import java.time.Duration;
import java.util.Arrays;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The session gauges' counts, one walk of the sessions shared by the gauges of one scrape: a
 * gauge reads the counts of the latest walk unless it read them already (then it is the next
 * scrape), or they are older than {@link #MAX_AGE} (a registry that reads gauges one by one, as
 * JMX does); else it walks the sessions again. So a value is never older than the previous read
 * of the same gauge, and a scrape of the sessions by transport and the held connects walks the
 * sessions once instead of once per gauge.
 *
 * <p>Thread-safe: the counts and what was read of them are guarded by {@code this} (the gauges of
 * several registries may be read at once; one walks while the others wait).
 */
final class SessionCensus {
    /** How long a walk's counts serve the gauges that have not read them. */
    static final Duration MAX_AGE = Duration.ofSeconds(1);

    private final Supplier<ServerCensus.SessionCounts> walk;
    private final LongSupplier nanoTime;
    /** The latest walk's counts, when they were taken, and which gauges read them; guarded by {@code this}. */
    private ServerCensus.SessionCounts counts;
    private long takenNanos;
    private final boolean[] read;

    /**
     * @param walk     counts the sessions: the server's {@link ServerCensus#sessionCounts()}
     * @param gauges   how many gauges read the counts, each by its index
     * @param nanoTime the monotonic clock
     */
    SessionCensus(Supplier<ServerCensus.SessionCounts> walk, int gauges, LongSupplier nanoTime) {
        this.walk = walk;
        this.nanoTime = nanoTime;
        this.read = new boolean[gauges];
    }

    /** The counts for the gauge of index {@code gauge}: the latest walk's, or a new walk's. */
    synchronized ServerCensus.SessionCounts countsFor(int gauge) {
        long now = nanoTime.getAsLong();
        if (counts == null || read[gauge] || now - takenNanos > MAX_AGE.toNanos()) {
            counts = walk.get();
            takenNanos = now;
            Arrays.fill(read, false);
        }
        read[gauge] = true;
        return counts;
    }

    @Override
    public synchronized String toString() {
        return "SessionCensus[" + counts + "]";
    }
}
