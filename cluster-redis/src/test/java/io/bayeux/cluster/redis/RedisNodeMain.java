package io.bayeux.cluster.redis;

import io.bayeux.api.server.ServerChannel;
import io.bayeux.transport.NettyBayeuxServer;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * A node in its own JVM for {@link RedisProcessesIT}: a server on 127.0.0.1 port 0, its Redis
 * cluster observing {@code /chat/**}, presence with a 2 s TTL; whoever publishes
 * {@code {"user": U}} on {@code /service/login} is U. Prints {@code READY <url> <nodeId>}.
 */
public final class RedisNodeMain {
    private RedisNodeMain() {
    }

    public static void main(String[] args) throws Exception {
        RedisNode node = RedisNode.start(NettyBayeuxServer.builder().host("127.0.0.1").port(0),
                RedisConfig.builder().uri(args[0]).channel("/chat/**").presenceTtl(Duration.ofSeconds(2)).build());
        NettyBayeuxServer server = node.server();
        RedisCluster cluster = node.cluster();
        RedisSeti seti = node.seti();
        server.bayeux().createChannelIfAbsent("/service/login").getReference()
                .addListener((ServerChannel.MessageListener) (from, channel, message) -> {
                    seti.associate((String) message.getDataAsMap().get("user"), from);
                    return true;
                });
        System.out.println("READY " + server.uri() + " " + cluster.getNodeId());
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
