package io.bayeux.client;

import io.bayeux.api.Message;
import io.bayeux.api.Promise;
import io.bayeux.client.transport.WebSocketTransport;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

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

    @RegisterExtension
    final ServerAndClients fixture = new ServerAndClients();
    private final ClientConfig config = ClientConfig.builder().eventLoopGroup(fixture.eventLoopGroup(2)).build();

    @Test
    @Timeout(60)
    void fiveHundredWebSocketClientsOnTwoThreadsAllReceiveOnePublish() throws Exception {
        NettyBayeuxServer server = fixture.start(b -> b.maxQueue(CLIENTS * 2, io.bayeux.server.QueueOverflow.DROP_OLDEST));
        List<BayeuxClient> clients = new ArrayList<>();
        CountDownLatch subscribed = new CountDownLatch(CLIENTS);
        CountDownLatch received = new CountDownLatch(CLIENTS);
        Set<String> receivers = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < CLIENTS; i++) {
            BayeuxClient client = fixture.client(new WebSocketTransport(config), config);
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
