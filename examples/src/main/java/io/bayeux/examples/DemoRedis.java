package io.bayeux.examples;

import io.bayeux.cluster.redis.RedisConfig;
import io.bayeux.cluster.redis.RedisNode;
import io.bayeux.cluster.redis.RedisSeti;
import io.bayeux.transport.NettyBayeuxServer;

import java.util.Arrays;
import java.util.List;

/**
 * The demo as a node of a cluster on Redis: the {@code --engine redis://HOST:PORT} flag of
 * {@link DemoServer} (instead of the {@code --oort-*} ones), or
 * {@code redis-sentinel://HOST:PORT,.../MASTER} (the master Sentinel names), or
 * {@code redis-cluster://HOST:PORT,...} (a Redis Cluster, with sharded pub/sub). The chat rooms and the events
 * ({@code /chat/**} and {@code /event/**} unless {@code --engine-channels} says otherwise) are
 * shared through Redis, their histories kept there, and the members
 * lists come from {@link RedisSeti} ({@link ClusterMembers}, as with {@code --oort-*}).
 */
final class DemoRedis {
    static final List<String> FLAGS = List.of("--engine", "--engine-channels");
    /** What {@code --engine} takes: {@link RedisConfig.Builder#uri}'s schemes. */
    static final List<String> SCHEMES = List.of("redis://", "rediss://", "redis-sentinel://", "redis-cluster://", "rediss-cluster://");

    private String uri;
    private List<String> channels = List.of("/chat/**", "/event/**");

    void set(String flag, String value) {
        switch (flag) {
            case "--engine" -> {
                if (SCHEMES.stream().noneMatch(value::startsWith)) {
                    throw new IllegalArgumentException("--engine takes redis://HOST:PORT, redis-sentinel://HOST:PORT,.../MASTER"
                            + " or redis-cluster://HOST:PORT,..., not " + value);
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

    /** Starts the node, its room members listed from its presence ({@link ClusterMembers}). */
    RedisNode start(NettyBayeuxServer.Builder builder) {
        RedisNode node = RedisNode.start(builder, RedisConfig.builder().uri(uri).channels(channels).build());
        ClusterMembers.install(node.server().bayeux(), node.seti());
        for (String pattern : List.of("/chat/**", "/chat/*")) {
            Republished.skipListeners(node.server().bayeux(), pattern, node.cluster()::isClusterSession);
        }
        return node;
    }
}
