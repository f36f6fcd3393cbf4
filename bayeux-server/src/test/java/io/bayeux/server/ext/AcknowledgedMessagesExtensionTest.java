package io.bayeux.server.ext;

import io.bayeux.api.server.ServerSession;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.server.internal.ManualScheduler;
import io.bayeux.server.internal.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AcknowledgedMessagesExtensionTest {
    private static final long TIMEOUT = BayeuxServerConfig.DEFAULT_TIMEOUT.toMillis();

    private final ManualScheduler scheduler = new ManualScheduler();
    private BayeuxServerImpl server;
    private TestClient publisher;

    @BeforeEach
    void start() {
        server = new BayeuxServerImpl(scheduler.config().executor(Runnable::run).build()).start();
        server.addExtension(new AcknowledgedMessagesExtension());
        publisher = new TestClient(server, false).connected();
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void handshakeReplyAgreesToAcknowledgements(boolean push) {
        TestClient client = new TestClient(server, push);
        Map<String, Object> reply = client.handshake(Map.of("ext", Map.of("ack", true)));

        assertEquals(true, reply.get("successful"));
        assertEquals(Map.of("ack", true), reply.get("ext"));
        ServerSession session = server.getSession(client.clientId());
        assertNotNull(AcknowledgedMessagesExtension.sessionExtension(session));
        assertTrue(session.isMetaConnectDeliveryOnly());
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void connectRepliesCarryIncreasingBatchNumbersFromOne(boolean push) {
        TestClient client = ackClient(push);
        assertEquals(1L, ack(firstConnect(client)));

        for (long batch = 2; batch <= 4; batch++) {
            CompletableFuture<List<Map<String, Object>>> held = connect(client, batch - 1);
            assertFalse(held.isDone(), "with nothing to deliver, the connect is held");
            scheduler.advance(TIMEOUT);
            assertEquals(batch, ack(done(held)));
        }
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void messageOfAnUnacknowledgedBatchIsDeliveredAgain(boolean push) {
        TestClient client = ackClient(push);
        client.subscribe("/news");
        firstConnect(client);
        publisher.publish("/news", "m1");

        List<Map<String, Object>> batch2 = done(connect(client, 1));
        assertEquals(2L, ack(batch2));
        assertEquals(List.of("m1"), data(batch2));

        // The reply of batch 2 got lost: the client still acknowledges only batch 1.
        CompletableFuture<List<Map<String, Object>>> retry = connect(client, 1);
        assertTrue(retry.isDone(), "a connect that acknowledges less than was sent is answered at once");
        List<Map<String, Object>> batch3 = done(retry);
        assertEquals(3L, ack(batch3));
        assertEquals(List.of("m1"), data(batch3));
        assertTrue(client.pushed.isEmpty(), "messages ride only in connect replies: " + client.pushed);
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void acknowledgedMessagesAreNotSentAgain(boolean push) {
        TestClient client = ackClient(push);
        client.subscribe("/news");
        firstConnect(client);
        publisher.publish("/news", "m1");
        assertEquals(List.of("m1"), data(done(connect(client, 1))));
        AcknowledgedMessagesSessionExtension extension = AcknowledgedMessagesExtension.sessionExtension(server.getSession(client.clientId()));
        assertEquals(1, extension.unacknowledgedCount());

        CompletableFuture<List<Map<String, Object>>> held = connect(client, 2);
        assertFalse(held.isDone(), "everything was acknowledged: the connect is held");
        assertEquals(0, extension.unacknowledgedCount());
        assertEquals(2L, extension.acknowledgedBatch());
        publisher.publish("/news", "m2");

        List<Map<String, Object>> batch3 = done(held);
        assertEquals(3L, ack(batch3));
        assertEquals(List.of("m2"), data(batch3));
        assertTrue(client.pushed.isEmpty(), "messages ride only in connect replies: " + client.pushed);
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void everyMessageArrivesExactlyOnceAcrossALostResponse(boolean push) {
        TestClient client = ackClient(push);
        client.subscribe("/news");
        List<Object> received = new ArrayList<>();
        long lastBatch = ack(firstConnect(client));

        publisher.publish("/news", "m1");
        publisher.publish("/news", "m2");
        List<Map<String, Object>> reply = done(connect(client, lastBatch));
        received.addAll(data(reply));
        lastBatch = ack(reply);

        publisher.publish("/news", "m3");
        List<Map<String, Object>> lost = done(connect(client, lastBatch));
        assertEquals(List.of("m3"), data(lost), "the reply that is about to get lost carried m3");

        publisher.publish("/news", "m4");
        reply = done(connect(client, lastBatch));
        received.addAll(data(reply));
        lastBatch = ack(reply);

        CompletableFuture<List<Map<String, Object>>> held = connect(client, lastBatch);
        assertFalse(held.isDone());
        publisher.publish("/news", "m5");
        received.addAll(data(done(held)));

        assertEquals(List.of("m1", "m2", "m3", "m4", "m5"), received);
        assertTrue(client.pushed.isEmpty(), "messages ride only in connect replies: " + client.pushed);
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void withoutAckInTheHandshakeNothingChanges(boolean push) {
        TestClient client = new TestClient(server, push).connected();
        ServerSession session = server.getSession(client.clientId());
        assertNull(AcknowledgedMessagesExtension.sessionExtension(session));
        assertFalse(session.isMetaConnectDeliveryOnly());
        client.subscribe("/news");

        CompletableFuture<List<Map<String, Object>>> held = client.connect();
        publisher.publish("/news", "m1");

        Map<String, Object> delivered;
        if (push) {
            delivered = client.nextPushed();
            assertFalse(held.isDone(), "over a pushing transport the connect stays held");
            scheduler.advance(TIMEOUT);
        } else {
            delivered = TestClient.deliveries(done(held), "/news").get(0);
        }
        assertEquals("m1", delivered.get("data"));
        assertNull(TestClient.reply(done(held), "/meta/connect").get("ext"), "no batch number without ack");
    }

    @Test
    void ackOtherThanTheBooleanTrueIsNotAnOptIn() {
        TestClient client = new TestClient(server, false);
        Map<String, Object> reply = client.handshake(Map.of("ext", Map.of("ack", "true")));

        assertNull(reply.get("ext"));
        assertNull(AcknowledgedMessagesExtension.sessionExtension(server.getSession(client.clientId())));
    }

    private TestClient ackClient(boolean push) {
        TestClient client = new TestClient(server, push);
        Map<String, Object> reply = client.handshake(Map.of("ext", Map.of("ack", true)));
        assertEquals(true, reply.get("successful"), reply.toString());
        return client;
    }

    /** The first connect, answered at once, as CometD's client sends it (ack -1: nothing received yet). */
    private static List<Map<String, Object>> firstConnect(TestClient client) {
        return done(connect(client, -1));
    }

    private static CompletableFuture<List<Map<String, Object>>> connect(TestClient client, long ack) {
        return client.send(Map.of("channel", "/meta/connect", "connectionType", client.transportName(), "ext", Map.of("ack", ack)));
    }

    private static List<Map<String, Object>> done(CompletableFuture<List<Map<String, Object>>> future) {
        try {
            return future.get(5, TimeUnit.SECONDS);
        } catch (Exception x) {
            throw new AssertionError("No reply within 5 s", x);
        }
    }

    /** The batch number of the connect reply among {@code messages}. */
    private static long ack(List<Map<String, Object>> messages) {
        Map<String, Object> reply = TestClient.reply(messages, "/meta/connect");
        assertEquals(true, reply.get("successful"), reply.toString());
        Object ext = reply.get("ext");
        assertTrue(ext instanceof Map<?, ?> map && map.get("ack") instanceof Number, "no batch number in " + reply);
        return ((Number) ((Map<?, ?>) ext).get("ack")).longValue();
    }

    private static List<Object> data(List<Map<String, Object>> messages) {
        return TestClient.deliveries(messages, "/news").stream().map(m -> m.get("data")).toList();
    }
}
