package io.bayeux.examples;

import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.transport.ClientTransport;
import io.bayeux.client.transport.LongPollingTransport;
import io.bayeux.client.transport.WebSocketTransport;
import io.bayeux.transport.NettyBayeuxServer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The training run of {@code bin/bayeux-demo}'s AOT cache ({@code bin/aot-cache}, JDK 25 and
 * newer): the demo's server and {@value #CLIENTS} clients in one JVM, a third of them over
 * long-polling, all in one chat room, each publishing {@value #MESSAGES} messages; the JVM records
 * the classes both sides load and link and the profiles of their hot methods
 * ({@code -XX:AOTCacheOutput}). A few seconds of CPU. Exits 0 when every message reached every
 * client, 1 otherwise (the launcher then keeps no cache).
 */
public final class DemoTraining {
    static final int CLIENTS = 30;
    static final int MESSAGES = 100;
    private static final String ROOM = "/chat/training";
    private static final Duration WAIT = Duration.ofSeconds(60);

    private DemoTraining() {
    }

    public static void main(String[] args) throws InterruptedException {
        // The JVM writes the cache as it exits.
        System.exit(train() ? 0 : 1);
    }

    /** Runs the workload against a demo server of its own on a free port; true when everything arrived in time. */
    static boolean train() throws InterruptedException {
        NettyBayeuxServer server = DemoServer.configure(NettyBayeuxServer.builder().host("127.0.0.1").port(0)).build().start();
        List<BayeuxClient> clients = new ArrayList<>();
        try {
            CountDownLatch subscribed = new CountDownLatch(CLIENTS);
            CountDownLatch delivered = new CountDownLatch(CLIENTS * CLIENTS * MESSAGES);
            for (int i = 0; i < CLIENTS; i++) {
                ClientConfig config = ClientConfig.builder().build();
                ClientTransport transport = i % 3 == 2 ? new LongPollingTransport(config) : new WebSocketTransport(config);
                BayeuxClient client = new BayeuxClient(server.uri().toString(), config, transport);
                clients.add(client);
                client.handshake();
                if (!client.waitFor(WAIT, BayeuxClient.State.CONNECTED)) {
                    return false;
                }
                client.getChannel(ROOM).subscribe((channel, message) -> delivered.countDown(), reply -> subscribed.countDown());
            }
            if (!subscribed.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                return false;
            }
            for (int m = 0; m < MESSAGES; m++) {
                for (int i = 0; i < CLIENTS; i++) {
                    clients.get(i).getChannel(ROOM).publish(Map.of("user", "trainer" + i, "chat", "message " + m + " of a training run"));
                }
            }
            return delivered.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } finally {
            clients.forEach(BayeuxClient::close);
            server.stop();
        }
    }
}
