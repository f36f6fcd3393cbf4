package io.bayeux.cluster.redis;

import io.bayeux.server.internal.BayeuxServerImpl;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a node shares, decided without Redis. */
class RedisClusterTest {
    @Test
    void observedChannelsMatchLikeBayeuxWildcards() {
        RedisCluster cluster = new RedisCluster(new BayeuxServerImpl(), RedisConfig.builder().uri("redis://127.0.0.1:1").build());
        cluster.observeChannel("/chat/*");
        cluster.observeChannel("/stock/**");
        assertTrue(cluster.isObserved("/chat/room"));
        assertFalse(cluster.isObserved("/chat/room/sub"), "one segment only");
        assertTrue(cluster.isObserved("/stock/a/b"));
        assertFalse(cluster.isObserved("/other"));
        assertFalse(cluster.isObserved("/chat/*"), "a wildcard is not published on");
        cluster.observeChannel("/**");
        assertFalse(cluster.isObserved("/meta/connect"), "meta channels never leave their node");
        assertFalse(cluster.isObserved("/service/echo"), "nor service channels");
        cluster.deobserveChannel("/**");
        cluster.deobserveChannel("/chat/*");
        assertFalse(cluster.isObserved("/chat/room"));
        assertEquals(java.util.Set.of("/stock/**"), cluster.getObservedChannels());
    }

    @Test
    void observedChannelsAreChecked() {
        RedisCluster cluster = new RedisCluster(new BayeuxServerImpl(), RedisConfig.builder().uri("redis://127.0.0.1:1").build());
        assertThrows(IllegalArgumentException.class, () -> cluster.observeChannel("not a channel"));
        assertFalse(cluster.isStarted());
        assertFalse(cluster.isConnected());
    }
}
