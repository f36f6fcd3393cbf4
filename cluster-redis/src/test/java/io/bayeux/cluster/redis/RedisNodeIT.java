package io.bayeux.cluster.redis;

import io.bayeux.api.server.LocalSession;
import io.bayeux.client.BayeuxClient;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import static io.bayeux.cluster.redis.RedisTesting.await;
import static io.bayeux.cluster.redis.RedisTesting.next;
import static io.bayeux.cluster.redis.RedisTesting.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Nodes started the one way, {@link RedisNode#start}, on a real redis-server, and closed by try-with-resources. */
class RedisNodeIT {
    @RegisterExtension
    final RedisFixture fixture = RedisFixture.withRedis();

    private RedisConfig.Builder config() {
        return RedisConfig.builder().uri(fixture.redis().uri()).channel("/chat/**");
    }

    private static NettyBayeuxServer.Builder server() {
        return NettyBayeuxServer.builder().host("127.0.0.1").port(0);
    }

    @Test
    void twoNodesShareTheirChannelsAndPresenceThenCloseInTryWithResources() throws Exception {
        RedisCluster clusterA;
        RedisSeti setiA;
        try (RedisNode a = RedisNode.start(server(), config().build());
             RedisNode b = RedisNode.start(server(), config().build())) {
            clusterA = a.cluster();
            setiA = a.seti();
            assertTrue(a.cluster().isStarted() && a.cluster().isConnected());
            assertEquals(List.of("/chat/**"), List.copyOf(a.cluster().getObservedChannels()));

            BayeuxClient bob = fixture.connected(b.server().uri().toString(), "websocket");
            BlockingQueue<Object> onB = new LinkedBlockingQueue<>();
            assertTrue(subscribe(bob, "/chat/room", (channel, message) -> onB.add(message.getDataAsMap().get("n"))).isSuccessful());
            await("B subscribed in Redis", () -> b.cluster().isSubscribed("/chat/room"));
            BayeuxClient alice = fixture.connected(a.server().uri().toString(), "long-polling");
            alice.getChannel("/chat/room").publish(Map.of("n", 1));
            assertEquals(1, next(onB));

            LocalSession local = a.server().bayeux().newLocalSession("alice");
            local.handshake();
            assertTrue(a.seti().associate("alice", local.getServerSession()));
            await("alice known on B", () -> b.seti().isPresent("alice"));
        }
        assertFalse(clusterA.isStarted(), "closed with its node");
        assertFalse(setiA.isAssociated("alice"), "its users left with it");
    }

    @Test
    void presenceOffStartsNoSeti() {
        try (RedisNode node = RedisNode.start(server(), config().presence(false).build())) {
            assertNull(node.seti());
            assertTrue(node.cluster().isStarted());
        }
    }

    @Test
    void aNodeWhoseRedisIsNotThereFailsAtStartAndLeavesNothingRunning() throws Exception {
        int port = fixture.redis().port();
        fixture.redis().kill();
        NettyBayeuxServer.Builder builder = server();
        RuntimeException x = assertThrows(RuntimeException.class,
                () -> RedisNode.start(builder, RedisConfig.builder().uri("redis://127.0.0.1:" + port).build()));
        assertTrue(String.valueOf(x.getMessage()).contains(String.valueOf(port)), String.valueOf(x));
        await("no Redis cluster thread left", () -> Thread.getAllStackTraces().keySet().stream()
                .noneMatch(thread -> thread.getName().startsWith("redis-cluster-") || thread.getName().startsWith("redis-seti-")));
    }

    @Test
    void aBadSettingFailsAtStartNamingTheSetting() {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> RedisNode.start(server(), config().bufferSize(-3).build()));
        assertTrue(x.getMessage().contains("bufferSize = -3"), x.getMessage());
        x = assertThrows(IllegalArgumentException.class,
                () -> RedisNode.start(server(), RedisConfig.builder().uri("localhost:" + fixture.redis().port()).build()));
        assertTrue(x.getMessage().contains("uri = 'localhost:"), x.getMessage());
    }
}
