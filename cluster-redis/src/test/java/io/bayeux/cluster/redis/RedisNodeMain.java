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
        NettyBayeuxServer server = NettyBayeuxServer.builder().host("127.0.0.1").port(0).build().start();
        RedisCluster cluster = new RedisCluster(server.bayeux(), args[0]);
        cluster.observeChannel("/chat/**");
        cluster.start();
        RedisSeti seti = new RedisSeti(cluster);
        seti.setPresenceTtl(Duration.ofSeconds(2));
        seti.start();
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
