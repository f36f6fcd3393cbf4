package io.bayeux.load;

import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSessionChannel;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.ext.AckExtension;
import io.bayeux.client.ext.RecoveryExtension;
import io.bayeux.client.transport.ClientTransport;
import io.bayeux.client.transport.LongPollingTransport;
import io.bayeux.client.transport.WebSocketTransport;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The reading clients of one run: made at the scenario's ramp-up rate, each joins its rooms
 * (as the {@link Ledger} says) and reports every chat message to a {@link Receiver}; then they
 * are counted, picked to publish, cut ({@code --cut-every}, with {@code --cut-for} through
 * {@link NetworkCuts}) and finally disconnected.
 *
 * <p>Thread-safety: {@link #connectAll} and {@link #closeAll} on the run's thread; the counters
 * are atomic; the client and transport arrays are written only by {@link #connectAll}, before
 * the publishers and the cutter start, and read by them afterwards.
 */
final class ChatClients {
    /** Told of every chat message a client receives, on that client's event loop. */
    interface Receiver {
        void delivered(int receiver, Message message);
    }

    private static final long READY_POLL_MILLIS = 50;
    private static final long DISCONNECT_WAIT_SECONDS = 15;

    private final Scenario scenario;
    private final Ledger ledger;
    private final RecoveryCount recoveries;
    private final BayeuxClient[] clients;
    private final ClientTransport[] transports;
    /** With {@code --cut-for}: the clients' cuttable transports; else null. */
    private final NetworkCuts networkCuts;
    private final LongAdder subscribed = new LongAdder();
    private final LongAdder subscribeFailures = new LongAdder();
    private final LongAdder handshakes = new LongAdder();
    private final AtomicInteger cuts = new AtomicInteger();
    private final AtomicReference<String> firstSubscribeError = new AtomicReference<>();

    ChatClients(Scenario scenario, Ledger ledger, RecoveryCount recoveries) {
        this.scenario = scenario;
        this.ledger = ledger;
        this.recoveries = recoveries;
        this.clients = new BayeuxClient[scenario.readers()];
        this.transports = new ClientTransport[scenario.readers()];
        this.networkCuts = scenario.cutFor() == null ? null : new NetworkCuts(clients, scenario.cutFor());
    }

    static String roomChannel(int room) {
        return "/chat/room/" + room;
    }

    /** A client of {@code url} on the scenario's transport, outside the run's readers (the stats client). */
    BayeuxClient newClient(URI url, ClientConfig config) {
        return new BayeuxClient(url.toString(), config, newTransport(config));
    }

    private ClientTransport newTransport(ClientConfig config) {
        return Scenario.WEBSOCKET.equals(scenario.transport()) ? new WebSocketTransport(config) : new LongPollingTransport(config);
    }

    /**
     * Makes every client at the ramp-up rate, handshakes and subscribes it to its rooms, then
     * waits until all are connected and subscribed; throws {@link BenchmarkException} when
     * they are not within the scenario's connect timeout.
     */
    void connectAll(ClientConfig config, Receiver receiver) throws InterruptedException {
        long start = System.nanoTime();
        long step = 1_000_000_000L / scenario.rampUpRate();
        for (int c = 0; c < clients.length; c++) {
            LockSupport.parkNanos(start + c * step - System.nanoTime());
            URI url = scenario.urls().get(c % scenario.urls().size());
            ClientTransport transport = newTransport(config);
            if (networkCuts != null) {
                transport = networkCuts.wrap(c, transport);
            }
            BayeuxClient client = new BayeuxClient(url.toString(), config, transport);
            clients[c] = client;
            transports[c] = transport;
            if (scenario.ack()) {
                client.addExtension(new AckExtension());
            }
            if (scenario.recover()) {
                RecoveryExtension recovery = new RecoveryExtension();
                recovery.addListener(recoveries);
                client.addExtension(recovery);
            }
            // Every successful handshake after a client's first means its session was lost and made anew.
            client.getChannel(Channel.META_HANDSHAKE).addListener((ClientSessionChannel.MessageListener) (channel, reply) -> {
                if (reply.isSuccessful()) {
                    handshakes.increment();
                }
            });
            client.handshake();
            int index = c;
            ClientSessionChannel.MessageListener listener = (channel, message) -> receiver.delivered(index, message);
            // The subscriptions wait for the handshake and then go in one batch.
            client.startBatch();
            for (int room : ledger.roomsOf(c)) {
                client.getChannel(roomChannel(room)).subscribe(listener, reply -> {
                    if (reply.isSuccessful()) {
                        subscribed.increment();
                    } else {
                        subscribeFailures.increment();
                        firstSubscribeError.compareAndSet(null, String.valueOf(reply.get(Message.ERROR_FIELD)));
                    }
                });
            }
            client.endBatch();
        }
        long wanted = (long) clients.length * scenario.roomsPerClient();
        long deadline = System.nanoTime() + scenario.connectTimeout().toNanos();
        while (subscribed.sum() < wanted || connectedCount() < clients.length) {
            if (System.nanoTime() > deadline) {
                throw new BenchmarkException("Not ready after " + scenario.connectTimeout().toSeconds() + " s: "
                        + connectedCount() + " of " + clients.length + " clients connected, " + subscribed.sum() + " of " + wanted
                        + " subscriptions done, " + subscribeFailures.sum() + " refused"
                        + (firstSubscribeError.get() == null ? "" : " (first: " + firstSubscribeError.get() + ")"));
            }
            Thread.sleep(READY_POLL_MILLIS);
        }
    }

    /** How many reading clients the run has. */
    int size() {
        return clients.length;
    }

    /** Client {@code c}. */
    BayeuxClient get(int c) {
        return clients[c];
    }

    int connectedCount() {
        int n = 0;
        for (BayeuxClient client : clients) {
            if (client != null && client.isConnected()) {
                n++;
            }
        }
        return n;
    }

    /** The client to publish the next batch: a random one, or with {@code --cut-for} the next one not cut. */
    int pickPublisher(Random random) {
        int publisher = random.nextInt(clients.length);
        return networkCuts == null ? publisher : networkCuts.publisher(publisher);
    }

    /** Cuts a random client's connection (with {@code --cut-for}, for that long). */
    void cut(Random random) {
        int victim = random.nextInt(transports.length);
        if (networkCuts != null) {
            if (networkCuts.cut(victim)) {
                cuts.incrementAndGet();
            }
            return;
        }
        ClientTransport transport = transports[victim];
        if (transport != null) {
            cuts.incrementAndGet();
            transport.abort();
        }
    }

    /** Connections cut so far. */
    int cuts() {
        return cuts.get();
    }

    long subscribeFailures() {
        return subscribeFailures.sum();
    }

    /** The handshakes beyond each client's first: sessions lost and made anew. */
    long rehandshakes() {
        return Math.max(0, handshakes.sum() - clients.length);
    }

    /** Disconnects every client and {@code statsClient} (if not null), waiting a bounded time for the replies, then closes them. */
    void closeAll(BayeuxClient statsClient) {
        List<BayeuxClient> all = new ArrayList<>();
        for (BayeuxClient client : clients) {
            if (client != null) {
                all.add(client);
            }
        }
        if (statsClient != null) {
            all.add(statsClient);
        }
        CountDownLatch done = new CountDownLatch(all.size());
        for (BayeuxClient client : all) {
            try {
                client.disconnect(reply -> done.countDown());
            } catch (RuntimeException x) {
                done.countDown();
            }
        }
        try {
            done.await(DISCONNECT_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
        all.forEach(BayeuxClient::close);
    }
}
