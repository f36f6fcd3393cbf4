package io.bayeux.examples;

import io.bayeux.cluster.redis.RedisCluster;
import io.bayeux.cluster.redis.RedisSeti;
import io.bayeux.transport.NettyBayeuxServer;

import java.util.Arrays;
import java.util.List;

/**
 * The demo as a node of a cluster on Redis: the {@code --engine redis://HOST:PORT} flag of
 * {@link DemoServer} (instead of the {@code --oort-*} ones). The chat rooms and the events
 * ({@code /chat/**} and {@code /event/**} unless {@code --engine-channels} says otherwise) are
 * shared through Redis, their histories kept there, and the members
 * lists come from {@link RedisSeti} ({@link ClusterMembers}, as with {@code --oort-*}).
 */
final class DemoRedis {
    static final List<String> FLAGS = List.of("--engine", "--engine-channels");

    private String uri;
    private List<String> channels = List.of("/chat/**", "/event/**");

    /** A running node: its server, cluster and presence. */
    record Node(NettyBayeuxServer server, RedisCluster cluster, RedisSeti seti) {
        /** The server first: no client publishes to a history the cluster no longer keeps in Redis. */
        void stop() {
            try {
                server.stop();
            } finally {
                try {
                    seti.stop();
                } finally {
                    cluster.stop();
                }
            }
        }
    }

    void set(String flag, String value) {
        switch (flag) {
            case "--engine" -> {
                if (!value.startsWith("redis://") && !value.startsWith("rediss://")) {
                    throw new IllegalArgumentException("--engine takes redis://HOST:PORT, not " + value);
                }
                uri = value;
            }
            case "--engine-channels" -> channels = Arrays.stream(value.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
            default -> throw new IllegalArgumentException("Unknown flag " + flag);
        }
    }

    boolean enabled() {
        return uri != null;
    }

    String uri() {
        return uri;
    }

    Node start(NettyBayeuxServer.Builder builder) {
        NettyBayeuxServer server = builder.build().start();
        RedisCluster cluster = new RedisCluster(server.bayeux(), uri);
        channels.forEach(cluster::observeChannel);
        cluster.start();
        RedisSeti seti = new RedisSeti(cluster);
        seti.start();
        ClusterMembers.install(server.bayeux(), seti);
        for (String pattern : List.of("/chat/**", "/chat/*")) {
            Republished.skipListeners(server.bayeux(), pattern, cluster::isClusterSession);
        }
        return new Node(server, cluster, seti);
    }
}
