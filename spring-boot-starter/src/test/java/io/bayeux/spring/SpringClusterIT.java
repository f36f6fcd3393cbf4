package io.bayeux.spring;

import io.bayeux.api.Message;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.transport.WebSocketTransport;
import io.bayeux.cluster.redis.RedisProcess;
import io.bayeux.testing.Await;
import io.bayeux.transport.NettyBayeuxServer;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two Spring Boot applications made nodes of one cluster by their properties alone: an Oort cloud,
 * and a cluster on a Redis of the test's own. A message published on one node reaches a client
 * subscribed on the other; closing a context takes its node out.
 */
class SpringClusterIT {
    private static final Duration WAIT = Duration.ofSeconds(15);

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();
    private final List<BayeuxClient> clients = new ArrayList<>();

    @AfterEach
    void close() {
        clients.forEach(BayeuxClient::close);
        contexts.forEach(ConfigurableApplicationContext::close);
    }

    private ConfigurableApplicationContext node(String... properties) {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(GreeterApplication.class)
                .properties("bayeux.port=0").properties(properties).run();
        contexts.add(context);
        return context;
    }

    private static String uri(ConfigurableApplicationContext context) {
        return context.getBean(NettyBayeuxServer.class).uri().toString();
    }

    @Test
    void twoOortNodesShareTheObservedChannels() throws Exception {
        ConfigurableApplicationContext a = node("bayeux.cluster=oort", "bayeux.oort.secret=s", "bayeux.oort.channels=/chat/**");
        ConfigurableApplicationContext b = node("bayeux.cluster=oort", "bayeux.oort.secret=s", "bayeux.oort.channels=/chat/**",
                "bayeux.oort.peers=" + uri(a));
        OortMember memberA = a.getBean(OortMember.class);
        OortMember memberB = b.getBean(OortMember.class);
        Await.until(WAIT, () -> memberA.oort().getKnownComets().equals(Set.of(uri(b)))
                && memberB.oort().getKnownComets().equals(Set.of(uri(a))), () -> "the nodes to know each other");

        assertMessagePassesBetween(a, b);
        assertEquals(1.0, a.getBean(MeterRegistry.class).get("bayeux.oort.links.up").gauge().value());

        b.close();
        assertFalse(memberB.isRunning());
        Await.until(WAIT, () -> memberA.oort().getKnownComets().isEmpty(), () -> "node a to see node b leave");
    }

    @Test
    void twoRedisNodesShareTheirChannels() throws Exception {
        try (RedisProcess redis = RedisProcess.start()) {
            String[] properties = {"bayeux.cluster=redis", "bayeux.redis.uri=" + redis.uri(), "bayeux.redis.channels=/chat/**"};
            ConfigurableApplicationContext a = node(properties);
            ConfigurableApplicationContext b = node(properties);
            assertTrue(a.getBean(RedisMember.class).cluster().isConnected());
            // The tests have Actuator: the cluster's meters are in its registry.
            assertEquals(1.0, a.getBean(MeterRegistry.class).get("bayeux.redis.connected").gauge().value());
            assertMessagePassesBetween(a, b);
            // The nodes go before their Redis does.
            b.close();
            a.close();
        }
    }

    /** A client of {@code to} subscribed to a chat channel receives what a client of {@code from} publishes there. */
    private void assertMessagePassesBetween(ConfigurableApplicationContext from, ConfigurableApplicationContext to) throws Exception {
        BayeuxClient subscriber = connected(uri(to));
        BlockingQueue<Message> received = new LinkedBlockingQueue<>();
        BlockingQueue<Message> replies = new LinkedBlockingQueue<>();
        subscriber.getChannel("/chat/cluster").subscribe((c, m) -> received.add(m), replies::add);
        assertTrue(next(replies).isSuccessful());
        RedisMember redis = to.getBeanProvider(RedisMember.class).getIfAvailable();
        if (redis != null) {
            // A Redis node takes a channel from Redis once one of its clients subscribes to it.
            Await.until(WAIT, () -> redis.cluster().isSubscribed("/chat/cluster"), () -> "the node to subscribe in Redis");
        }
        BayeuxClient publisher = connected(uri(from));
        publisher.getChannel("/chat/cluster").publish(Map.of("text", "across"), replies::add);
        assertTrue(next(replies).isSuccessful());
        assertEquals(Map.of("text", "across"), next(received).getData());
    }

    private BayeuxClient connected(String url) throws InterruptedException {
        ClientConfig config = ClientConfig.builder().build();
        BayeuxClient client = new BayeuxClient(url, config, new WebSocketTransport(config));
        clients.add(client);
        client.handshake();
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), () -> "not connected: " + client);
        return client;
    }

    private static <T> T next(BlockingQueue<T> queue) throws InterruptedException {
        T element = queue.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(element, "nothing arrived within " + WAIT);
        return element;
    }
}
