package io.bayeux.examples;

import io.bayeux.oort.OortConfig;
import io.bayeux.oort.OortNode;
import io.bayeux.transport.NettyBayeuxServer;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * The demo as a node of a cluster: the {@code --oort-*} flags of {@link DemoServer}. The chat
 * rooms ({@code /chat/**} unless {@code --oort-channels} says otherwise) are observed on every
 * node, and the members lists come from Seti ({@link ClusterMembers}), so two people on two
 * nodes chat together and see each other.
 */
final class DemoCluster {
    static final List<String> FLAGS = List.of("--oort-url", "--oort-secret", "--oort-peers", "--oort-channels", "--oort-failure-timeout");

    private String url;
    private String secret;
    private List<String> peers = List.of();
    private List<String> channels = List.of("/chat/**");
    private Duration failureTimeout;
    private boolean enabled;

    /** Takes one flag and its value. */
    void set(String flag, String value) {
        enabled = true;
        switch (flag) {
            case "--oort-url" -> url = value;
            case "--oort-secret" -> secret = value;
            case "--oort-peers" -> peers = split(value);
            case "--oort-channels" -> channels = split(value);
            case "--oort-failure-timeout" -> failureTimeout = Duration.ofMillis(Long.parseLong(value));
            default -> throw new IllegalArgumentException("Unknown flag " + flag);
        }
    }

    private static List<String> split(String value) {
        return Arrays.stream(value.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
    }

    boolean enabled() {
        return enabled;
    }

    /** Starts the server as a cluster node; its Oort and Seti stop with {@link OortNode#stop()}. */
    OortNode start(NettyBayeuxServer.Builder builder) {
        if (secret == null) {
            throw new IllegalArgumentException("--oort-secret is required in a cluster: every node must share it");
        }
        OortConfig.Builder config = OortConfig.builder().secret(secret).peers(peers).channels(channels);
        if (url != null) {
            config.url(url);
        }
        if (failureTimeout != null) {
            config.failureTimeout(failureTimeout);
        }
        OortNode node = OortNode.start(builder, config.build());
        ClusterMembers.install(node.server().bayeux(), node.seti());
        for (String pattern : List.of("/chat/**", "/chat/*")) {
            Republished.skipListeners(node.server().bayeux(), pattern, node.oort()::isOortSession);
        }
        return node;
    }

    List<String> peers() {
        return peers;
    }
}
