package io.bayeux.cluster.redis;

import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSessionChannel;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.transport.LongPollingTransport;
import io.bayeux.client.transport.WebSocketTransport;
import io.bayeux.testing.Await;
import io.bayeux.transport.NettyBayeuxServer;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the Redis cluster tests share: nodes on loopback port 0, clients, bounded waits. */
final class RedisTesting {
    /** The longest a step waits: generous, for a 2-core machine shared with other builds. */
    static final Duration WAIT = Duration.ofSeconds(40);

    private RedisTesting() {
    }

    /** A started server with its started Redis cluster. */
    record Node(NettyBayeuxServer server, RedisCluster cluster) implements AutoCloseable {
        String url() {
            return server.uri().toString();
        }

        @Override
        public void close() {
            try {
                cluster.stop();
            } finally {
                server.stop();
            }
        }
    }

    static Node node(RedisProcess redis, String... observed) {
        return node(redis, config -> { }, observed);
    }

    static Node node(RedisProcess redis, java.util.function.Consumer<RedisConfig.Builder> configure, String... observed) {
        return node(redis.uri(), configure, observed);
    }

    /** A node on the Redis {@code uri} names ({@code redis-sentinel://...}, {@code redis-cluster://...}). */
    static Node node(String uri, java.util.function.Consumer<RedisConfig.Builder> configure, String... observed) {
        NettyBayeuxServer server = NettyBayeuxServer.builder().host("127.0.0.1").port(0).build().start();
        RedisConfig.Builder config = RedisConfig.builder().uri(uri).channels(java.util.List.of(observed));
        configure.accept(config);
        RedisCluster cluster = new RedisCluster(server.bayeux(), config.build());
        cluster.start();
        return new Node(server, cluster);
    }

    /** Waits until {@code condition} holds, at most {@link #WAIT}: {@link Await#until} with this module's timeout. */
    static void await(String what, BooleanSupplier condition) {
        Await.until(WAIT, condition, () -> what);
    }

    static BayeuxClient client(String url, String transport) throws InterruptedException {
        ClientConfig config = ClientConfig.builder().build();
        BayeuxClient client = "long-polling".equals(transport)
                ? new BayeuxClient(url, config, new LongPollingTransport(config))
                : new BayeuxClient(url, config, new WebSocketTransport(config));
        client.handshake();
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), () -> "not connected: " + client);
        return client;
    }

    static Message subscribe(BayeuxClient client, String channel, ClientSessionChannel.MessageListener listener) throws InterruptedException {
        BlockingQueue<Message> reply = new LinkedBlockingQueue<>();
        client.getChannel(channel).subscribe(listener, reply::add);
        return next(reply);
    }

    static Message publish(BayeuxClient client, String channel, Object data) throws InterruptedException {
        BlockingQueue<Message> reply = new LinkedBlockingQueue<>();
        client.getChannel(channel).publish(data, reply::add);
        return next(reply);
    }

    static <T> T next(BlockingQueue<T> queue) throws InterruptedException {
        T element = queue.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(element, "nothing arrived within " + WAIT);
        return element;
    }
}
