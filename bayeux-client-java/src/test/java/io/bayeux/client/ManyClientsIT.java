package io.bayeux.client;

import io.bayeux.api.Message;
import io.bayeux.api.Promise;
import io.bayeux.client.transport.WebSocketTransport;
import io.bayeux.transport.NettyBayeuxServer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Many clients share one small event loop group: the client costs connections, not threads. */
class ManyClientsIT {
    private static final int CLIENTS = 500;
    private static final Duration STEP = Duration.ofSeconds(20);

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final ClientConfig config = ClientConfig.builder().eventLoopGroup(group).build();
    private final List<BayeuxClient> clients = new ArrayList<>();
    private NettyBayeuxServer server;

    @AfterEach
    void stop() {
        clients.forEach(BayeuxClient::close);
        if (server != null) {
            server.stop();
        }
        assertTrue(group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS), "the group stopped");
    }

    @Test
    @Timeout(60)
    void fiveHundredWebSocketClientsOnTwoThreadsAllReceiveOnePublish() throws Exception {
        server = NettyBayeuxServer.builder().port(0).maxQueue(CLIENTS * 2, io.bayeux.transport.QueueOverflow.DROP_OLDEST).build().start();
        CountDownLatch subscribed = new CountDownLatch(CLIENTS);
        CountDownLatch received = new CountDownLatch(CLIENTS);
        Set<String> receivers = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < CLIENTS; i++) {
            BayeuxClient client = new BayeuxClient(server.uri().toString(), config, new WebSocketTransport(config));
            clients.add(client);
            String name = "client-" + i;
            client.handshake();
            // Subscribing while the handshake is under way: the subscription waits for it and goes right after.
            client.getChannel("/all").subscribe((channel, message) -> {
                if (receivers.add(name)) {
                    received.countDown();
                }
            }, reply -> {
                if (reply.isSuccessful()) {
                    subscribed.countDown();
                }
            });
        }
        assertTrue(subscribed.await(STEP.toSeconds(), TimeUnit.SECONDS), () -> subscribed.getCount() + " not subscribed");
        assertEquals(CLIENTS, server.bayeux().getChannel("/all").getSubscribers().size());
        for (BayeuxClient client : clients) {
            // The subscribe reply may come before the first connect reply.
            assertTrue(client.waitFor(Duration.ofSeconds(5), BayeuxClient.State.CONNECTED), () -> "not connected: " + client);
        }

        server.bayeux().getChannel("/all").publish(null, Map.of("to", "everyone"), Promise.noop());

        assertTrue(received.await(STEP.toSeconds(), TimeUnit.SECONDS), () -> received.getCount() + " did not receive");
        assertEquals(CLIENTS, receivers.size());

        CountDownLatch disconnected = new CountDownLatch(CLIENTS);
        for (BayeuxClient client : clients) {
            client.disconnect((Message reply) -> disconnected.countDown());
        }
        assertTrue(disconnected.await(STEP.toSeconds(), TimeUnit.SECONDS), () -> disconnected.getCount() + " not disconnected");
        for (BayeuxClient client : clients) {
            assertTrue(client.waitFor(Duration.ofSeconds(5), BayeuxClient.State.DISCONNECTED), () -> "still " + client);
        }
        assertTrue(server.bayeux().getSessions().isEmpty(), () -> server.bayeux().getSessions().size() + " sessions left");
    }
}
