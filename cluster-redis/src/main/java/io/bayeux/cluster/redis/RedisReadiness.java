package io.bayeux.cluster.redis;

import io.bayeux.server.spi.ReadinessCheck;

import java.util.Objects;

/**
 * A node's readiness as far as Redis goes, named {@code redis}: ready while its
 * {@link RedisCluster} is started and both its connections to Redis are up. For a health
 * endpoint (the metrics module's {@code /health/ready}, or the application's own). The report
 * never shows the Redis URI, which may carry a password.
 *
 * <p>Thread-safe; answers from the cluster's state, without blocking.
 */
public final class RedisReadiness implements ReadinessCheck {
    private final RedisCluster cluster;

    public RedisReadiness(RedisCluster cluster) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public Result check() {
        if (!cluster.isStarted()) {
            return Result.notReady("the Redis cluster is not started");
        }
        return cluster.isConnected() ? Result.READY : Result.notReady("Redis unreachable");
    }

    @Override
    public String toString() {
        return "RedisReadiness[" + cluster.getNodeId() + "]";
    }
}
