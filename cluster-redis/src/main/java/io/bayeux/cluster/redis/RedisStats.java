package io.bayeux.cluster.redis;

import java.util.function.LongConsumer;

/**
 * What a {@link RedisCluster}'s way to Redis holds now and how late the other nodes' messages
 * arrive, for metrics ({@code bayeux-metrics}' {@code RedisMetrics} reads it; this module knows
 * no metrics library). Obtained from {@link RedisCluster#stats()}.
 *
 * <p>Thread-safe: the counts are read from the cluster's atomics and its buffer's lock; the lag
 * listener is a volatile field.
 */
public final class RedisStats {
    private final OutageBuffer outbox;
    /** Told each lag, or null (the default): then nothing is measured. */
    private volatile LongConsumer lagListener;

    RedisStats(OutageBuffer outbox) {
        this.outbox = outbox;
    }

    /** Publishes sent to Redis and not answered yet (messages and histories' publishes). */
    public int inFlight() {
        return outbox.inFlight();
    }

    /**
     * Messages for the other nodes waiting in the outage buffer: while Redis is away, until the
     * settle delay after it came back, or to be sent again (on a Redis Cluster, after a failover).
     * At most {@link RedisConfig#bufferSize()}; past it they are dropped.
     */
    public int buffered() {
        return outbox.buffered();
    }

    /**
     * Messages for the other nodes lost: the buffer was full while Redis was away, or Redis
     * refused them (or, for a history's publish, took a later one of this node first).
     */
    public long dropped() {
        return outbox.dropped();
    }

    /**
     * Installs the listener told, for each message of another node that arrives here through
     * Redis, the milliseconds from its publish on its node to its arrival here (the nodes' wall
     * clocks: as exact as they agree; a lag below 0 is told as 0). Called on Lettuce's thread,
     * so it must be quick and not block. At most one; {@code null} removes it.
     */
    public void onLag(LongConsumer listener) {
        this.lagListener = listener;
    }

    /** A message of another node stamped {@code publishedMillis} (0: not stamped) arrived. */
    void arrived(long publishedMillis) {
        LongConsumer listener = lagListener;
        if (listener != null && publishedMillis > 0) {
            listener.accept(Math.max(0, System.currentTimeMillis() - publishedMillis));
        }
    }

    @Override
    public String toString() {
        return "RedisStats[" + inFlight() + " in flight, " + buffered() + " buffered, " + dropped() + " dropped]";
    }
}
