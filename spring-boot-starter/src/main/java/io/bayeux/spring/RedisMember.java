package io.bayeux.spring;

import io.bayeux.cluster.redis.RedisCluster;
import io.bayeux.cluster.redis.RedisConfig;
import io.bayeux.cluster.redis.RedisSeti;
import io.bayeux.server.spi.ReadinessCheck;
import io.bayeux.transport.NettyBayeuxServer;
import org.springframework.context.SmartLifecycle;

/**
 * The auto-configured server as a node of a cluster on Redis ({@code bayeux.cluster=redis}): its
 * {@link RedisCluster} and (unless {@code bayeux.redis.presence=false}) {@link RedisSeti} start
 * before the server, so its first clients find the cluster in place, and stop after it, as
 * {@code RedisNode} does. A Redis that cannot be reached at start fails the application's start.
 * Spring calls start and stop from one thread at a time.
 */
public final class RedisMember implements SmartLifecycle, ClusterPresence {
    private final RedisCluster cluster;
    private final RedisSeti seti;
    /** Written by Spring's lifecycle thread; read from any. */
    private volatile boolean running;

    public RedisMember(NettyBayeuxServer server, RedisConfig config) {
        this.cluster = new RedisCluster(server.bayeux(), config);
        this.seti = config.presence() ? new RedisSeti(cluster) : null;
    }

    @Override
    public void start() {
        try {
            cluster.start();
            if (seti != null) {
                seti.start();
            }
        } catch (RuntimeException x) {
            try {
                cluster.stop();
            } catch (RuntimeException y) {
                x.addSuppressed(y);
            }
            throw new BayeuxStartException("The cluster on Redis at " + cluster.getConfig().uri() + " did not start",
                    "Start Redis, or set bayeux.redis.uri to where it runs (or bayeux.cluster to none).", x);
        }
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        try {
            if (seti != null) {
                seti.stop();
            }
        } finally {
            cluster.stop();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Before the server starts, so after it stops. */
    @Override
    public int getPhase() {
        return BayeuxServerLifecycle.PHASE - 1;
    }

    public RedisCluster cluster() {
        return cluster;
    }

    /** The node's presence, or null when {@code bayeux.redis.presence} is false. */
    public RedisSeti seti() {
        return seti;
    }

    /** The node's readiness, named {@code redis}: ready while its cluster runs and reaches Redis. */
    public ReadinessCheck readiness() {
        return new ReadinessCheck() {
            @Override
            public String name() {
                return "redis";
            }

            @Override
            public Result check() {
                if (!running) {
                    return Result.notReady("the Redis cluster is not started");
                }
                // The URI stays out of the report: it may carry a password.
                return cluster.isConnected() ? Result.READY : Result.notReady("Redis unreachable");
            }
        };
    }

    @Override
    public String toString() {
        return "RedisMember[" + cluster + "]";
    }
}
