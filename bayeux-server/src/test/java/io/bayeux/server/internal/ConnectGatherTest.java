package io.bayeux.server.internal;

import io.bayeux.server.BayeuxServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link BayeuxServerConfig#connectGather()}: connect replies that carry messages, at least that far apart. */
class ConnectGatherTest {
    private static final long GATHER = 100;

    private final ManualScheduler scheduler = new ManualScheduler();
    private BayeuxServerImpl server;

    private TestClient subscriber(boolean push, long gatherMillis) {
        server = new BayeuxServerImpl(scheduler.config().connectGather(Duration.ofMillis(gatherMillis)).executor(Runnable::run).build()).start();
        TestClient client = new TestClient(server, push).connected();
        client.subscribe("/news");
        return client;
    }

    /** A long-polling subscriber of /news that receives often: its replies gather. */
    private TestClient busySubscriber() {
        TestClient client = subscriber(false, GATHER);
        client.receiveOften(scheduler, "/news");
        return client;
    }

    @AfterEach
    void stopServer() {
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void aMessageSoonAfterAReplyWaitsUntilTheGatherTimeHasPassedAndGoesWithWhatCameMeanwhile() {
        TestClient client = busySubscriber();
        // The last connect was answered at this time.
        CompletableFuture<List<Map<String, Object>>> held = client.connect();
        server.getChannel("/news").publish(null, "one");
        assertFalse(held.isDone(), "a reply went out less than the gather time ago");
        scheduler.advance(60);
        server.getChannel("/news").publish(null, "two");
        scheduler.advance(39);
        assertFalse(held.isDone());
        scheduler.advance(1);
        assertTrue(held.isDone(), "answered when the gather time has passed since the last reply");
        List<Map<String, Object>> news = TestClient.deliveries(held.join(), "/news");
        assertEquals(List.of("one", "two"), news.stream().map(m -> m.get("data")).toList());
        assertEquals(true, TestClient.reply(held.join(), "/meta/connect").get("successful"));
    }

    @Test
    void aSessionThatReceivesNowAndThenWaitsForNothing() {
        TestClient client = subscriber(false, GATHER);
        CompletableFuture<List<Map<String, Object>>> held = client.connect();
        scheduler.advance(GATHER);
        assertFalse(held.isDone());
        server.getChannel("/news").publish(null, "late");
        assertTrue(held.isDone(), "held longer than the gather time: answered at once");
        assertEquals("late", TestClient.deliveries(held.join(), "/news").get(0).get("data"));
    }

    @Test
    void aMessageSoonAfterAReplyToASessionThatReceivesRarelyGoesAtOnce() {
        TestClient client = subscriber(false, GATHER);
        // One message a second: a gather time would bring no second one, only latency.
        for (int i = 0; i < 5; i++) {
            CompletableFuture<List<Map<String, Object>>> held = client.connect();
            scheduler.advance(1000);
            server.getChannel("/news").publish(null, "rare");
            assertTrue(held.isDone());
        }
        CompletableFuture<List<Map<String, Object>>> held = client.connect();
        server.getChannel("/news").publish(null, "soon");
        assertTrue(held.isDone(), "answered at once, though the last reply went out just now");
        assertEquals("soon", TestClient.deliveries(held.join(), "/news").get(0).get("data"));
    }

    @Test
    void aSessionThatWasBusyAndTurnsQuietStopsGathering() {
        TestClient client = busySubscriber();
        CompletableFuture<List<Map<String, Object>>> gathering = client.connect();
        server.getChannel("/news").publish(null, "busy");
        assertFalse(gathering.isDone(), "busy: the message waits for the gather time");
        scheduler.advance(GATHER);
        assertTrue(gathering.isDone());
        for (int i = 0; i < 15; i++) {
            CompletableFuture<List<Map<String, Object>>> held = client.connect();
            scheduler.advance(1000);
            server.getChannel("/news").publish(null, "quiet");
            assertTrue(held.isDone());
        }
        CompletableFuture<List<Map<String, Object>>> held = client.connect();
        server.getChannel("/news").publish(null, "soon");
        assertTrue(held.isDone(), "quiet now: answered at once");
    }

    @Test
    void aConnectFindingMessagesQueuedIsHeldForTheRestOfTheGatherTime() {
        TestClient client = busySubscriber();
        CompletableFuture<List<Map<String, Object>>> first = client.connect();
        scheduler.advance(500);
        server.getChannel("/news").publish(null, "one");
        assertTrue(first.isDone());
        // Queued while no connect is held, as between a reply and the client's next connect.
        server.getChannel("/news").publish(null, "two");
        scheduler.advance(10);
        CompletableFuture<List<Map<String, Object>>> second = client.connect();
        assertFalse(second.isDone(), "90 ms of the gather time are left");
        server.getChannel("/news").publish(null, "three");
        scheduler.advance(89);
        assertFalse(second.isDone());
        scheduler.advance(1);
        assertTrue(second.isDone());
        assertEquals(List.of("two", "three"), TestClient.deliveries(second.join(), "/news").stream().map(m -> m.get("data")).toList());
    }

    @Test
    void aConnectArrivingWhileThePreviousReplyIsStillBeingWrittenWaitsAsWell() {
        TestClient client = busySubscriber();
        CompletableFuture<List<Map<String, Object>>> first = client.connect();
        scheduler.advance(500);
        // The client reads the reply and connects again before the writing thread goes on:
        // here, from inside the write (the responder), as a fast client on another core would.
        CompletableFuture<CompletableFuture<List<Map<String, Object>>>> second = first.thenApply(reply -> {
            server.getChannel("/news").publish(null, "two");
            return client.connect();
        });
        server.getChannel("/news").publish(null, "one");
        assertTrue(first.isDone());
        assertFalse(second.join().isDone(), "the reply that just went out counts: the gather time is ahead");
        scheduler.advance(GATHER);
        assertTrue(second.join().isDone());
        assertEquals(List.of("two"), TestClient.deliveries(second.join().join(), "/news").stream().map(m -> m.get("data")).toList());
    }

    @Test
    void whatAFullReplyCouldNotCarryGoesInTheNextRepliesAtOnce() {
        server = new BayeuxServerImpl(scheduler.config().connectGather(Duration.ofMillis(GATHER)).maxBatchBytes(1024)
                .executor(Runnable::run).build()).start();
        TestClient client = new TestClient(server, false).connected();
        client.subscribe("/news");
        CompletableFuture<List<Map<String, Object>>> held = client.connect();
        scheduler.advance(500);
        var session = server.getSession(client.clientId());
        String text = "x".repeat(600);
        session.batch(() -> {
            for (int i = 0; i < 3; i++) {
                session.deliver(null, "/news", text + i, io.bayeux.api.Promise.noop());
            }
        });
        assertTrue(held.isDone());
        List<Object> received = new java.util.ArrayList<>(TestClient.deliveries(held.join(), "/news").stream().map(m -> m.get("data")).toList());
        assertEquals(1, received.size(), "one 600-byte message fits in 1 KiB");
        for (int i = 0; i < 2; i++) {
            CompletableFuture<List<Map<String, Object>>> next = client.connect();
            assertTrue(next.isDone(), "a message left by a full reply waits for no gathering");
            received.addAll(TestClient.deliveries(next.join(), "/news").stream().map(m -> m.get("data")).toList());
        }
        assertEquals(List.of(text + 0, text + 1, text + 2), received);
        assertFalse(client.connect().isDone(), "nothing left: held");
    }

    @Test
    void theHoldsTimeoutStillEndsAHoldWithNothingQueued() {
        TestClient client = subscriber(false, GATHER);
        CompletableFuture<List<Map<String, Object>>> held = client.connect();
        scheduler.advance(19_999);
        assertFalse(held.isDone());
        scheduler.advance(1);
        assertTrue(held.isDone());
        assertEquals(List.of(), TestClient.deliveries(held.join(), "/news"));
    }

    @Test
    void zeroAnswersAsSoonAsAMessageComes() {
        TestClient client = subscriber(false, 0);
        CompletableFuture<List<Map<String, Object>>> held = client.connect();
        server.getChannel("/news").publish(null, "now");
        assertTrue(held.isDone());
        assertEquals("now", TestClient.deliveries(held.join(), "/news").get(0).get("data"));
    }

    @Test
    void pushedMessagesDoNotWait() {
        TestClient client = subscriber(true, GATHER);
        client.connect();
        server.getChannel("/news").publish(null, "pushed");
        assertEquals("pushed", client.nextPushed().get("data"), "a pushing connection writes at once");
    }

    @Test
    void aNegativeGatherTimeIsRefused() {
        assertEquals(BayeuxServerConfig.DEFAULT_CONNECT_GATHER, BayeuxServerConfig.defaults().connectGather());
        assertThrows(IllegalArgumentException.class, () -> BayeuxServerConfig.builder().connectGather(Duration.ofMillis(-1)));
    }
}
