package io.bayeux.client;

import io.bayeux.api.Channel;
import io.bayeux.api.client.ClientSessionChannel;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.QueueOverflow;
import io.bayeux.testing.Await;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A session whose queue holds more than a client takes in one frame or response (a server
 * that fell behind, a batch of many messages) gets it in pieces: no frame or response larger
 * than the server's {@code maxBatchBytes}, so the client never drops its connection for a
 * frame too large, and nothing is lost or repeated.
 */
class LargeBacklogIT {
    private static final int COUNT = 3000;
    private static final String KILOBYTE = "x".repeat(1000);

    @RegisterExtension
    final ServerAndClients fixture = new ServerAndClients();

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void threeMegabytesQueuedAtOnceReachAClientThatTakesOneMegabyteAFrame(String transport) throws Exception {
        fixture.start(server -> server.maxQueue(2 * COUNT, QueueOverflow.DROP_OLDEST));
        receiveBacklog(transport, ClientConfig.builder().build());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void theBoundIsTheServersToSet(String transport) throws Exception {
        fixture.start(server -> server.maxQueue(2 * COUNT, QueueOverflow.DROP_OLDEST)
                .bayeuxConfig(BayeuxServerConfig.builder().maxBatchBytes(8 * 1024).build()));
        // The client refuses anything over 12 KiB: pieces of at most 8 KiB pass.
        receiveBacklog(transport, ClientConfig.builder().maxMessageSize(12 * 1024).build());
    }

    private void receiveBacklog(String transport, ClientConfig config) throws Exception {
        BayeuxClient client = fixture.client(transport, config);
        AtomicInteger handshakes = new AtomicInteger();
        client.getChannel(Channel.META_HANDSHAKE).addListener((ClientSessionChannel.MessageListener) (channel, reply) -> {
            if (reply.isSuccessful()) {
                handshakes.incrementAndGet();
            }
        });
        AtomicInteger failedConnects = new AtomicInteger();
        client.getChannel(Channel.META_CONNECT).addListener((ClientSessionChannel.MessageListener) (channel, reply) -> {
            if (!reply.isSuccessful()) {
                failedConnects.incrementAndGet();
            }
        });
        Clients.connect(client);
        List<Integer> received = new CopyOnWriteArrayList<>();
        Clients.subscribe(client, "/backlog", (channel, message) -> received.add(((Number) ((java.util.Map<?, ?>) message.getData()).get("n")).intValue()));
        ServerSession session = fixture.server().bayeux().getSession(client.getId());
        assertNotNull(session, "the client's session on the server");

        // All queued before any goes out: one batch of about 3 MB.
        session.batch(() -> {
            for (int i = 0; i < COUNT; i++) {
                session.deliver(null, "/backlog", java.util.Map.of("n", i, "text", KILOBYTE), io.bayeux.api.Promise.noop());
            }
        });

        Await.until(Duration.ofSeconds(30), () -> received.size() >= COUNT, () -> COUNT + " messages; received " + received.size());
        assertEquals(IntStream.range(0, COUNT).boxed().toList(), List.copyOf(received), "every message once, in order");
        assertEquals(1, handshakes.get(), "the session was never lost");
        assertEquals(0, failedConnects.get(), "no connect failed");
        assertTrue(client.isConnected(), "still connected");
    }
}
