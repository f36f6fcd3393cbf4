package io.bayeux.server.internal;

import io.bayeux.api.Promise;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.BayeuxServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import static io.bayeux.server.internal.Deliveries.data;
import static io.bayeux.server.internal.Deliveries.drain;
import static io.bayeux.server.internal.Deliveries.onlyDeliveries;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A session's queue goes out in frames or responses of at most {@code maxBatchBytes} of JSON,
 * in order, whichever way it goes: pushed from an event loop, pushed by the executor's
 * flusher, or carried by connect replies.
 */
class MaxBatchBytesTest {
    private static final int MAX = 1024;
    /** About 130 bytes of JSON each: eight of them fill a batch. */
    private static final String TEXT = "x".repeat(60);
    private static final int COUNT = 40;

    private final ManualScheduler scheduler = new ManualScheduler();
    private BayeuxServerImpl server;

    private void start() {
        server = new BayeuxServerImpl(scheduler.config().executor(Runnable::run)
                .maxBatchBytes(MAX).build()).start();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    private ServerSession session(TestClient client) {
        return server.getSession(client.clientId());
    }

    private static void queue(ServerSession session, int count, String text) {
        session.batch(() -> {
            for (int i = 0; i < count; i++) {
                session.deliver(null, "/chat/room", Map.of("n", i, "text", text), Promise.noop());
            }
        });
    }

    private static List<Integer> numbers(List<Map<String, Object>> deliveries) {
        List<Integer> numbers = new ArrayList<>();
        for (Object data : data(deliveries)) {
            numbers.add(((Number) ((Map<?, ?>) data).get("n")).intValue());
        }
        return numbers;
    }

    @ParameterizedTest(name = "from an event loop: {0}")
    @ValueSource(booleans = {true, false})
    void aPushedQueueGoesOutInFramesOfAtMostTheBound(boolean loop) {
        start();
        TestClient bob = new TestClient(server, true, loop ? Runnable::run : null).connected();

        queue(session(bob), COUNT, TEXT);

        assertEquals(IntStream.range(0, COUNT).boxed().toList(), numbers(drain(bob)), "every message once, in order");
        assertTrue(bob.writes.get() > 1, () -> "several frames: " + bob.writeBytes);
        assertTrue(bob.writeBytes.stream().allMatch(b -> b <= MAX), () -> "no frame over " + MAX + ": " + bob.writeBytes);
        // Full frames: none would have taken the next message.
        int total = bob.writeBytes.stream().mapToInt(Integer::intValue).sum();
        assertTrue(total > (bob.writes.get() - 1) * (MAX - 200), () -> "frames filled: " + bob.writeBytes);
    }

    @Test
    void aMessageLargerThanTheBoundGoesAloneBetweenTheOthers() {
        start();
        TestClient bob = new TestClient(server, true, Runnable::run).connected();
        ServerSession session = session(bob);

        session.batch(() -> {
            session.deliver(null, "/chat/room", Map.of("n", 0, "text", TEXT), Promise.noop());
            session.deliver(null, "/chat/room", Map.of("n", 1, "text", "y".repeat(3 * MAX)), Promise.noop());
            session.deliver(null, "/chat/room", Map.of("n", 2, "text", TEXT), Promise.noop());
        });

        assertEquals(List.of(0, 1, 2), numbers(drain(bob)));
        assertEquals(3, bob.writes.get(), () -> "the large one alone: " + bob.writeBytes);
        assertTrue(bob.writeBytes.get(1) > 3 * MAX);
    }

    @Test
    void aConnectReplyCarriesAtMostTheBoundAndTheNextConnectIsAnsweredAtOnce() throws Exception {
        start();
        TestClient bob = new TestClient(server, false).connected();
        ServerSession session = session(bob);

        queue(session, COUNT, TEXT);

        List<Integer> received = new ArrayList<>();
        int replies = 0;
        while (received.size() < COUNT && replies < COUNT) {
            CompletableFuture<List<Map<String, Object>>> connect = bob.connect();
            assertTrue(connect.isDone(), "not held while messages wait");
            List<Map<String, Object>> deliveries = onlyDeliveries(connect.join());
            received.addAll(numbers(deliveries));
            replies++;
            assertFalse(deliveries.isEmpty(), "each reply carries some");
            int bytes = server.jsonCodec().write(deliveries).length;
            assertTrue(bytes <= MAX, () -> bytes + " bytes of messages in one reply");
        }
        assertEquals(IntStream.range(0, COUNT).boxed().toList(), received, "every message once, in order");
        assertTrue(replies > 1);
        assertFalse(bob.connect().isDone(), "held again once the queue is empty");
    }

    @Test
    void aQueueShapedByDeQueueListenersGoesWhole() {
        start();
        TestClient bob = new TestClient(server, true, Runnable::run).connected();
        ServerSession session = session(bob);
        // Listeners decide what goes together (acknowledged delivery numbers the batch): the core does not split what they leave.
        session.addListener((ServerSession.DeQueueListener) (s, queue) -> { });

        queue(session, COUNT, TEXT);

        assertEquals(IntStream.range(0, COUNT).boxed().toList(), numbers(drain(bob)));
        assertEquals(1, bob.writes.get(), () -> "one push: " + bob.writeBytes);
    }

    @Test
    void theBoundIsAtLeastOneKilobyte() {
        assertThrows(IllegalArgumentException.class, () -> BayeuxServerConfig.builder().maxBatchBytes(1023));
        assertEquals(64 * 1024, BayeuxServerConfig.defaults().maxBatchBytes());
    }
}
