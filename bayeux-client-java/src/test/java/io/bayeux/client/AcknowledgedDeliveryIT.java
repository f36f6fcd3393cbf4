package io.bayeux.client;

import io.bayeux.api.Message;
import io.bayeux.api.Promise;
import io.bayeux.api.client.ClientSessionChannel;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.client.ext.AckExtension;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.QueueOverflow;
import io.bayeux.server.ext.AcknowledgedMessagesExtension;
import io.bayeux.server.ext.AcknowledgedMessagesSessionExtension;
import io.bayeux.server.internal.QueueOverflowPolicy;
import io.bayeux.testing.Await;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

import static io.bayeux.client.Clients.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Acknowledged delivery across dropped connections: with the ack extensions on both sides,
 * every message published while the client's connections keep being cut arrives exactly once.
 */
class AcknowledgedDeliveryIT {
    private static final int COUNT = 200;

    private final ClientConfig config = ClientConfig.builder()
            .backoffIncrement(Duration.ofMillis(50))
            .maxBackoff(Duration.ofMillis(200))
            .build();
    @RegisterExtension
    final ServerAndClients fixture = new ServerAndClients();

    /** Starts a server that {@code configure} sets up, with the acknowledgement extension. */
    private NettyBayeuxServer start(UnaryOperator<NettyBayeuxServer.Builder> configure) {
        NettyBayeuxServer server = fixture.start(configure);
        server.bayeux().addExtension(new AcknowledgedMessagesExtension());
        return server;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void everyMessageArrivesExactlyOnceWhileConnectionsAreCut(String transport) throws Exception {
        NettyBayeuxServer server = start(UnaryOperator.identity());
        RecordingTransport recording = new RecordingTransport(Clients.transport(transport, config));
        BayeuxClient client = fixture.client(recording, config);
        AckExtension ack = new AckExtension();
        client.addExtension(ack);
        Clients.connect(client);
        assertTrue(ack.isServerSupportingAcks());
        List<Integer> received = new CopyOnWriteArrayList<>();
        CountDownLatch all = new CountDownLatch(COUNT);
        subscribe(client, "/acked", (channel, message) -> {
            int n = ((Number) message.getData()).intValue();
            received.add(n);
            all.countDown();
            if (received.size() % 30 == 0) {
                // In the middle of a batch: what follows in it is delivered, the next reply may be lost.
                recording.cut();
            }
        });

        ServerChannel channel = server.bayeux().getChannel("/acked");
        for (int i = 0; i < COUNT; i++) {
            channel.publish(null, i, Promise.noop());
            if (i % 20 == 10) {
                recording.cut();
            }
        }

        boolean done = all.await(30, TimeUnit.SECONDS);
        assertEquals(IntStream.range(0, COUNT).boxed().toList(), List.copyOf(received),
                () -> "arrived " + received.size() + (done ? "" : " (gave up waiting)") + ", distinct " + received.stream().distinct().count());
        assertTrue(client.waitFor(Clients.WAIT, BayeuxClient.State.CONNECTED));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void aConnectReplyDeletedByAnotherExtensionBringsNoDuplicate(String transport) throws Exception {
        NettyBayeuxServer server = start(b -> b.bayeuxConfig(BayeuxServerConfig.builder().timeout(Duration.ofSeconds(1)).build()));
        AtomicInteger connectReplies = new AtomicInteger();
        AtomicInteger deleted = new AtomicInteger();
        server.bayeux().addExtension(new BayeuxServer.Extension() {
            @Override
            public boolean sendMeta(ServerSession to, ServerMessage.Mutable message) {
                if ("/meta/connect".equals(message.getChannel()) && message.isSuccessful() && to != null && !to.isLocalSession()
                        && connectReplies.incrementAndGet() % 3 == 0) {
                    deleted.incrementAndGet();
                    return false;
                }
                return true;
            }
        });
        ClientConfig quick = ClientConfig.builder().maxNetworkDelay(Duration.ofSeconds(1))
                .backoffIncrement(Duration.ofMillis(50)).maxBackoff(Duration.ofMillis(200)).build();
        BayeuxClient client = fixture.client(transport, quick);
        client.addExtension(new AckExtension());
        Clients.connect(client);
        List<Integer> received = new CopyOnWriteArrayList<>();
        subscribe(client, "/acked", (channel, message) -> received.add(((Number) message.getData()).intValue()));
        AcknowledgedMessagesSessionExtension ack = AcknowledgedMessagesExtension.sessionExtension(server.bayeux().getSession(client.getId()));

        int count = 12;
        ServerChannel channel = server.bayeux().getChannel("/acked");
        for (int i = 0; i < count; i++) {
            channel.publish(null, i, Promise.noop());
            int n = i;
            Await.until(Duration.ofSeconds(15), () -> received.size() > n, () -> "message " + n + "; received " + received);
        }
        // Once the client acknowledged everything, nothing can come again.
        Await.until(Duration.ofSeconds(15), () -> ack.unacknowledgedCount() == 0 && server.bayeux().getSession(client.getId()).getQueueSize() == 0,
                () -> "every message acknowledged: " + ack.unacknowledgedCount() + " not, " + server.bayeux().getSession(client.getId()).getQueueSize() + " queued");
        assertTrue(deleted.get() > 0, "the test deleted connect replies");
        assertEquals(0, ack.unacknowledgedCount(), "all acknowledged");
        assertEquals(IntStream.range(0, count).boxed().toList(), List.copyOf(received), "each message once, in order");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void anAcknowledgedSessionWhoseQueueOverflowsIsDisconnectedWithAReasonInsteadOfLosingMessages(String transport) throws Exception {
        NettyBayeuxServer server = start(b -> b.maxQueue(10, QueueOverflow.DROP_OLDEST));
        BayeuxClient client = fixture.client(transport, config);
        client.addExtension(new AckExtension());
        Clients.connect(client);
        String firstId = client.getId();
        List<Object> errors = new CopyOnWriteArrayList<>();
        List<Integer> received = new CopyOnWriteArrayList<>();
        // What the first session got: the client's next session (it handshakes again at once)
        // may get what the test publishes after it subscribed.
        List<Integer> beforeError = new CopyOnWriteArrayList<>();
        client.getChannel("/meta/connect").addListener((ClientSessionChannel.MessageListener) (channel, message) -> {
            if (!message.isSuccessful()) {
                if (errors.isEmpty()) {
                    beforeError.addAll(received);
                }
                errors.add(message.get(Message.ERROR_FIELD));
            }
        });
        subscribe(client, "/acked", (channel, message) -> received.add(((Number) message.getData()).intValue()));

        ServerSession session = server.bayeux().getSession(firstId);
        ServerChannel channel = server.bayeux().getChannel("/acked");
        session.startBatch(); // everything is queued before anything can leave: the queue overflows
        for (int i = 0; i < 50; i++) {
            channel.publish(null, i, Promise.noop());
        }
        session.endBatch();

        Await.until(Duration.ofSeconds(10), () -> errors.contains(QueueOverflowPolicy.QUEUE_FULL),
                () -> "the client to be told why; connect errors " + errors + ", received " + received);
        List<Integer> got = List.copyOf(beforeError);
        assertEquals(IntStream.range(0, got.size()).boxed().toList(), got, "what arrived has no gap: the rest is what the error tells of");
        assertTrue(client.waitFor(Clients.WAIT, BayeuxClient.State.CONNECTED));
        assertTrue(!firstId.equals(client.getId()), "the client started afresh with a new session");
    }
}
