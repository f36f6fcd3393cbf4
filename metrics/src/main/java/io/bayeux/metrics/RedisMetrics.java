package io.bayeux.metrics;

import io.bayeux.cluster.redis.RedisCluster;
import io.bayeux.cluster.redis.RedisReadiness;
import io.bayeux.cluster.redis.RedisStats;
import io.bayeux.server.spi.ReadinessCheck;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The meters of a node of a cluster on Redis ({@link RedisCluster}): whether Redis is connected
 * ({@code bayeux_redis_connected}, 1 or 0), and the counts the cluster keeps: messages sent to
 * Redis, received from other nodes, duplicates, known lost, and dropped (the buffer was full
 * while Redis was away); what its way to Redis holds now ({@link RedisStats}: publishes in
 * flight, messages buffered); the pub/sub lag of other nodes' messages as a histogram; and its
 * {@linkplain #readiness readiness check}.
 *
 * <p>Thread-safe; {@link #close()} removes its meters and stops measuring the lag.
 */
public final class RedisMetrics implements AutoCloseable {
    private final MeterRegistry registry;
    private final RedisStats stats;
    private final List<Meter> meters;

    private RedisMetrics(RedisCluster cluster, MeterRegistry registry) {
        this.registry = registry;
        this.stats = cluster.stats();
        Timer lag = Timer.builder("bayeux.redis.lag")
                .description("From a message's publish on another node to its arrival here through Redis (the nodes' wall clocks)")
                .serviceLevelObjectives(MeterObserver.LATENCY_BUCKETS).register(registry);
        stats.onLag(millis -> lag.record(millis, TimeUnit.MILLISECONDS));
        this.meters = List.of(lag,
                Gauge.builder("bayeux.redis.in.flight", stats, RedisStats::inFlight)
                        .description("Publishes sent to Redis and not answered yet").register(registry),
                Gauge.builder("bayeux.redis.buffered", stats, RedisStats::buffered)
                        .description("Messages for the other nodes waiting for Redis (away, settling, or to send again)").register(registry),
                Gauge.builder("bayeux.redis.connected", cluster, c -> c.isConnected() ? 1 : 0)
                        .description("1 while both connections to Redis are up, else 0").register(registry),
                counter(registry, cluster, "bayeux.redis.published", RedisCluster::getPublished, "Messages this node sent to Redis (confirmed by it)"),
                counter(registry, cluster, "bayeux.redis.received", RedisCluster::getReceived, "Messages from other nodes delivered here"),
                counter(registry, cluster, "bayeux.redis.duplicates", RedisCluster::getDuplicates, "Second copies of a message dropped here"),
                counter(registry, cluster, "bayeux.redis.lost", RedisCluster::getLost, "Messages from other nodes this node knows it missed"),
                counter(registry, cluster, "bayeux.redis.dropped", RedisCluster::getDropped,
                        "Messages for the other nodes lost: the buffer was full while Redis was away, or Redis refused them"));
    }

    private static Meter counter(MeterRegistry registry, RedisCluster cluster, String name, ToDoubleFunction<RedisCluster> count, String description) {
        return FunctionCounter.builder(name, cluster, count).description(description).register(registry);
    }

    public static RedisMetrics bind(RedisCluster cluster, MeterRegistry registry) {
        return new RedisMetrics(Objects.requireNonNull(cluster, "cluster"), Objects.requireNonNull(registry, "registry"));
    }

    /** Ready when the cluster is started and reaches Redis: the cluster's own {@link RedisReadiness}. */
    public static ReadinessCheck readiness(RedisCluster cluster) {
        return new RedisReadiness(cluster);
    }

    @Override
    public void close() {
        stats.onLag(null);
        meters.forEach(registry::remove);
    }
}
