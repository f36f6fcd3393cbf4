package io.bayeux.cluster.redis;

import io.bayeux.transport.NettyBayeuxServer;

import java.util.Objects;

/**
 * A running node of a cluster on Redis: a {@link NettyBayeuxServer}, its {@link RedisCluster}
 * and, unless the config turns presence off, its {@link RedisSeti}, started and stopped
 * together. The same shape as Oort's {@code OortNode}.
 *
 * <pre>{@code
 * try (RedisNode node = RedisNode.start(NettyBayeuxServer.builder().port(8080),
 *         RedisConfig.builder().uri("redis://127.0.0.1:6379").channel("/chat/**").build())) {
 *     ...
 * }
 * }</pre>
 *
 * <p>Thread-safe; {@link #stop()} may be called more than once.
 */
public final class RedisNode implements AutoCloseable {
    private final NettyBayeuxServer server;
    private final RedisCluster cluster;
    private final RedisSeti seti;

    private RedisNode(NettyBayeuxServer server, RedisCluster cluster, RedisSeti seti) {
        this.server = server;
        this.cluster = cluster;
        this.seti = seti;
    }

    /**
     * Builds the server, starts its cluster (connected to Redis: Lettuce's
     * {@code RedisConnectionException} if Redis cannot be reached now; later absences are ridden
     * out) and presence, then the server: its first clients find the cluster in place. If a step
     * fails, what was started is stopped again and the failure thrown.
     */
    public static RedisNode start(NettyBayeuxServer.Builder builder, RedisConfig config) {
        Objects.requireNonNull(builder, "builder");
        Objects.requireNonNull(config, "config");
        NettyBayeuxServer server = builder.build();
        RedisCluster cluster = new RedisCluster(server.bayeux(), config);
        RedisSeti seti = config.presence() ? new RedisSeti(cluster) : null;
        try {
            cluster.start();
            if (seti != null) {
                seti.start();
            }
            server.start();
            return new RedisNode(server, cluster, seti);
        } catch (RuntimeException x) {
            stop(server, cluster, seti);
            throw x;
        }
    }

    public NettyBayeuxServer server() {
        return server;
    }

    public RedisCluster cluster() {
        return cluster;
    }

    /** The node's presence, or null when the config turned it off. */
    public RedisSeti seti() {
        return seti;
    }

    /**
     * Stops the server first (no client publishes to a history the cluster no longer keeps in
     * Redis), then presence (the other nodes see this node's users leave), then the cluster.
     */
    public void stop() {
        stop(server, cluster, seti);
    }

    /** {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    private static void stop(NettyBayeuxServer server, RedisCluster cluster, RedisSeti seti) {
        try {
            server.stop();
        } finally {
            try {
                if (seti != null) {
                    seti.stop();
                }
            } finally {
                cluster.stop();
            }
        }
    }

    @Override
    public String toString() {
        return "RedisNode[" + cluster + "]";
    }
}
