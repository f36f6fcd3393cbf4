package io.bayeux.spring;

import io.bayeux.metrics.PresenceMetrics;
import io.bayeux.metrics.RedisMetrics;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The meters of the auto-configured node on Redis ({@code bayeux.redis.*}, and
 * {@code bayeux.presence.*} when it keeps presence) in Actuator's registry, from when it is made
 * (they read the cluster's counters as they are scraped) until {@link #close()}. Thread-safe.
 */
final class RedisMeters implements AutoCloseable {
    private final RedisMetrics redis;
    private final PresenceMetrics presence;

    RedisMeters(RedisMember member, MeterRegistry registry) {
        this.redis = RedisMetrics.bind(member.cluster(), registry);
        this.presence = member.seti() != null ? PresenceMetrics.bind(member.seti(), registry) : null;
    }

    @Override
    public void close() {
        if (presence != null) {
            presence.close();
        }
        redis.close();
    }
}
