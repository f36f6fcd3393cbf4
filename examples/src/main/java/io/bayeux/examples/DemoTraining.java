package io.bayeux.examples;

import io.bayeux.api.Message;
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
import java.util.concurrent.atomic.AtomicReference;

/**
 * The training run of {@code bin/bayeux-demo}'s AOT cache ({@code bin/aot-cache}, JDK 25 and
 * newer): the demo's server and {@value #CLIENTS} clients in one JVM, a third of them over
 * long-polling, all in one chat room, each publishing {@value #MESSAGES} messages, with at most
 * {@value #WINDOW} rounds of them undelivered at a time (a burst of all of them would overflow a
 * long-polling session's queue, {@code maxQueue} 1,000 by default); the JVM records
 * the classes both sides load and link and the profiles of their hot methods
 * ({@code -XX:AOTCacheOutput}). A few seconds of CPU. Exits 0 when every message reached every
 * client, 1 otherwise (the launcher then keeps no cache).
 */
public final class DemoTraining {
    static final int CLIENTS = 30;
    static final int MESSAGES = 100;
    private static final String ROOM = "/chat/training";
    /** The rounds (every client publishing once) that may be undelivered at a time. */
    static final int WINDOW = 10;
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
        long deadline = System.nanoTime() + WAIT.toNanos();
        try {
            CountDownLatch subscribed = new CountDownLatch(CLIENTS);
            // One latch per round (every client publishing once), counted down by every delivery of the round.
            CountDownLatch[] rounds = new CountDownLatch[MESSAGES];
            for (int m = 0; m < MESSAGES; m++) {
                rounds[m] = new CountDownLatch(CLIENTS * CLIENTS);
            }
            AtomicReference<Message> refused = new AtomicReference<>();
            for (int i = 0; i < CLIENTS; i++) {
                ClientConfig config = ClientConfig.builder().build();
                ClientTransport transport = i % 3 == 2 ? new LongPollingTransport(config) : new WebSocketTransport(config);
                BayeuxClient client = new BayeuxClient(server.uri().toString(), config, transport);
                clients.add(client);
                client.handshake();
                if (!client.waitFor(WAIT, BayeuxClient.State.CONNECTED)) {
                    return failed("client " + i + " did not connect: " + client.getState());
                }
                client.getChannel(ROOM).subscribe((channel, message) -> rounds[((Number) message.getDataAsMap().get("round")).intValue()].countDown(),
                        reply -> subscribed.countDown());
            }
            if (!await(subscribed, deadline)) {
                return failed("not every client subscribed");
            }
            for (int m = 0; m < MESSAGES; m++) {
                // At most WINDOW rounds undelivered: a session's queue stays far below the server's maxQueue.
                if (m >= WINDOW && !await(rounds[m - WINDOW], deadline)) {
                    return failed("round " + (m - WINDOW) + " missing " + rounds[m - WINDOW].getCount() + " deliveries" + reason(refused));
                }
                for (int i = 0; i < CLIENTS; i++) {
                    Map<String, Object> data = Map.of("user", "trainer" + i, "chat", "message " + m + " of a training run", "round", m);
                    clients.get(i).getChannel(ROOM).publish(data, reply -> {
                        if (!reply.isSuccessful()) {
                            refused.compareAndSet(null, reply);
                        }
                    });
                }
            }
            for (int m = Math.max(0, MESSAGES - WINDOW); m < MESSAGES; m++) {
                if (!await(rounds[m], deadline)) {
                    return failed("round " + m + " missing " + rounds[m].getCount() + " deliveries" + reason(refused));
                }
            }
            return refused.get() == null || failed("a publish was refused: " + refused.get());
        } finally {
            clients.forEach(BayeuxClient::close);
            server.stop();
        }
    }

    private static boolean await(CountDownLatch latch, long deadline) throws InterruptedException {
        return latch.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
    }

    private static String reason(AtomicReference<Message> refused) {
        return refused.get() == null ? "" : "; a publish was refused: " + refused.get();
    }

    private static boolean failed(String why) {
        System.err.println("Training run failed: " + why);
        return false;
    }
}
