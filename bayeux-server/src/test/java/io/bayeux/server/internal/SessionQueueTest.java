package io.bayeux.server.internal;

import io.bayeux.api.Promise;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.BayeuxServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static io.bayeux.server.internal.Deliveries.data;
import static io.bayeux.server.internal.Deliveries.drain;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A session's queue and its flow control: the queue bound and what happens when it is hit,
 * batching, per-session message listeners and private delivery.
 *
 * <p>To make messages wait in a pushing client's queue, the tests deliver inside a batch of
 * the receiving session: nothing is pushed until the batch ends.
 */
class SessionQueueTest extends ServerTestSupport {
    private ServerSession session(TestClient client) {
        return server.getSession(client.clientId());
    }

    private static boolean deliver(ServerSession session, Object data) {
        Promise.Completable<Boolean> queued = new Promise.Completable<>();
        session.deliver(null, "/chat/room", data, queued);
        try {
            return queued.get(5, TimeUnit.SECONDS);
        } catch (Exception x) {
            throw new AssertionError("deliver did not complete", x);
        }
    }

    // --- the queue bound

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void queueIsUnboundedByDefault(boolean push) {
        assertEquals(-1, server.config().maxQueue());
        TestClient bob = new TestClient(server, push).connected();
        ServerSession session = session(bob);
        assertEquals(-1, session.getMaxQueue());

        List<Object> sent = new ArrayList<>();
        session.batch(() -> {
            for (int i = 0; i < 500; i++) {
                sent.add("m" + i);
                assertTrue(deliver(session, "m" + i));
            }
            assertEquals(500, session.getQueueSize());
        });
        assertEquals(sent, data(drain(bob)));
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void fullQueueWithoutQueueMaxedListenerDropsNewMessages(boolean push) {
        TestClient bob = new TestClient(server, push).connected();
        ServerSession session = session(bob);
        session.setMaxQueue(3);

        List<Boolean> queued = new ArrayList<>();
        session.batch(() -> {
            for (int i = 0; i < 5; i++) {
                queued.add(deliver(session, "m" + i));
            }
            assertEquals(3, session.getQueueSize());
        });
        assertEquals(List.of(true, true, true, false, false), queued, "the caller is told of each drop");
        assertEquals(List.of("m0", "m1", "m2"), data(drain(bob)));

        assertTrue(deliver(session, "m5"), "an emptied queue takes messages again");
        assertEquals(List.of("m5"), data(drain(bob)));
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void aThrowingQueueMaxedListenerCannotGrowTheQueuePastItsBound(boolean push) {
        TestClient bob = new TestClient(server, push).connected();
        ServerSession session = session(bob);
        session.setMaxQueue(2);
        session.addListener((ServerSession.QueueMaxedListener) (s, queue, sender, message) -> {
            throw new IllegalStateException("listener bug");
        });
        List<Boolean> queued = new ArrayList<>();
        session.batch(() -> {
            for (int i = 0; i < 4; i++) {
                queued.add(deliver(session, "m" + i));
            }
            assertEquals(2, session.getQueueSize());
        });
        assertEquals(List.of(true, true, false, false), queued);
        assertEquals(List.of("m0", "m1"), data(drain(bob)));
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void publishToAFullQueueSucceedsForThePublisherAndOtherSubscribers(boolean push) {
        TestClient alice = new TestClient(server, push).connected();
        TestClient bob = new TestClient(server, push).connected();
        TestClient carol = new TestClient(server, push).connected();
        bob.subscribe("/chat/room");
        carol.subscribe("/chat/room");
        ServerSession bobSession = session(bob);
        bobSession.setMaxQueue(2);

        bobSession.batch(() -> {
            for (int i = 0; i < 4; i++) {
                assertEquals(true, alice.publish("/chat/room", "m" + i).get("successful"));
            }
        });
        assertEquals(List.of("m0", "m1"), data(drain(bob)));
        assertEquals(List.of("m0", "m1", "m2", "m3"), data(drain(carol)));
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void queueMaxedListenerCanDropTheOldestToKeepTheNewest(boolean push) {
        TestClient alice = new TestClient(server, push).connected();
        TestClient bob = new TestClient(server, push).connected();
        bob.subscribe("/chat/room");
        ServerSession bobSession = session(bob);
        ServerSession aliceSession = session(alice);
        bobSession.setMaxQueue(3);
        List<String> told = new CopyOnWriteArrayList<>();
        bobSession.addListener((ServerSession.QueueMaxedListener) (session, queue, sender, message) -> {
            told.add((session == bobSession) + ":" + (sender == aliceSession) + ":"
                    + queue.size() + ":" + queue.peek().getData() + ":" + message.getData());
            queue.poll();
            return true;
        });

        bobSession.batch(() -> {
            for (int i = 0; i < 5; i++) {
                alice.publish("/chat/room", "m" + i);
            }
        });
        assertEquals(List.of("true:true:3:m0:m3", "true:true:3:m1:m4"), told, "the listener sees the full queue and the new message");
        assertEquals(List.of("m2", "m3", "m4"), data(drain(bob)));
    }

    @Test
    void queueMaxedListenerReturningFalseDropsTheNewMessage() {
        TestClient bob = new TestClient(server, false).connected();
        ServerSession session = session(bob);
        session.setMaxQueue(1);
        List<Object> refused = new CopyOnWriteArrayList<>();
        session.addListener((ServerSession.QueueMaxedListener) (s, queue, sender, message) -> {
            refused.add(message.getData());
            return false;
        });
        assertTrue(deliver(session, "kept"));
        assertFalse(deliver(session, "refused"));
        assertEquals(List.of("refused"), refused);
        assertEquals(List.of("kept"), data(drain(bob)));
    }

    @Test
    void configuredMaxQueueBoundsEveryNewSession() {
        BayeuxServerImpl bounded = new BayeuxServerImpl(scheduler.config().executor(Runnable::run).maxQueue(2).build()).start();
        try {
            TestClient bob = new TestClient(bounded, false).connected();
            ServerSession session = bounded.getSession(bob.clientId());
            assertEquals(2, session.getMaxQueue());
            List<Boolean> queued = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                queued.add(deliver(session, "m" + i));
            }
            assertEquals(List.of(true, true, false), queued);
            assertEquals(List.of("m0", "m1"), data(drain(bob)));
        } finally {
            bounded.stop();
        }
    }

    @Test
    void maxQueueRejectsZeroAndBelowMinusOne() {
        TestClient bob = new TestClient(server, false).connected();
        ServerSession session = session(bob);
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> session.setMaxQueue(0));
        assertTrue(zero.getMessage().contains("0"), zero.getMessage());
        assertThrows(IllegalArgumentException.class, () -> session.setMaxQueue(-2));
        assertThrows(IllegalArgumentException.class, () -> BayeuxServerConfig.builder().maxQueue(0));
    }

    @Test
    void aStalledReadersQueueStopsAtTheStalledBoundAndGrowsAgainOnceItReads() {
        TestClient bob = new TestClient(server, true, Runnable::run).connected();
        ServerSession session = session(bob);
        bob.writable = false;
        bob.stalled = true;
        int bound = BayeuxServerConfig.DEFAULT_MAX_STALLED_QUEUE;

        for (int i = 0; i < bound + 50; i++) {
            deliver(session, "m" + i);
        }
        assertEquals(bound, session.getQueueSize(), "unbounded maxQueue, but stalled");

        bob.stalled = false;
        deliver(session, "slow but reading");
        assertEquals(bound + 1, session.getQueueSize(), "its own bound again");
    }

    @Test
    void withoutAStalledBoundAStalledReadersQueueGrowsToItsOwn() {
        server.stop();
        server = new BayeuxServerImpl(scheduler.config().executor(Runnable::run)
                .maxQueue(1500).maxStalledQueue(-1).build()).start();
        TestClient bob = new TestClient(server, true, Runnable::run).connected();
        ServerSession session = session(bob);
        bob.writable = false;
        bob.stalled = true;

        for (int i = 0; i < 1600; i++) {
            deliver(session, "m" + i);
        }
        assertEquals(1500, session.getQueueSize());
        assertThrows(IllegalArgumentException.class, () -> BayeuxServerConfig.builder().maxStalledQueue(0));
    }

    // --- batching

    @Test
    void deliveriesInABatchArriveInOnePush() {
        TestClient bob = new TestClient(server, true).connected();
        ServerSession session = session(bob);

        int before = bob.writes.get();
        session.batch(() -> {
            for (int i = 0; i < 5; i++) {
                deliver(session, "m" + i);
            }
            assertEquals(before, bob.writes.get(), "nothing is pushed before the batch ends");
        });
        assertEquals(before + 1, bob.writes.get(), "one write for the whole batch");
        assertEquals(List.of("m0", "m1", "m2", "m3", "m4"), data(drain(bob)));

        for (int i = 0; i < 3; i++) {
            deliver(session, "u" + i);
        }
        assertEquals(before + 4, bob.writes.get(), "outside a batch, one write per delivery");
    }

    @Test
    void deliveriesInABatchReleaseTheHeldConnectOnce() {
        TestClient bob = new TestClient(server, false).connected();
        ServerSession session = session(bob);

        CompletableFuture<List<Map<String, Object>>> held = bob.connect();
        session.batch(() -> {
            for (int i = 0; i < 5; i++) {
                deliver(session, "m" + i);
            }
            assertFalse(held.isDone(), "the connect is not released before the batch ends");
        });
        assertTrue(held.isDone());
        assertEquals(List.of("m0", "m1", "m2", "m3", "m4"), data(Deliveries.onlyDeliveries(held.join())));

        CompletableFuture<List<Map<String, Object>>> next = bob.connect();
        deliver(session, "u0");
        deliver(session, "u1");
        assertEquals(List.of("u0"), data(Deliveries.onlyDeliveries(next.join())), "outside a batch the first delivery releases it");
        assertEquals(List.of("u1"), data(drain(bob)));
    }

    @Test
    void nestedBatchesSendWhenTheOutermostEnds() {
        TestClient bob = new TestClient(server, true).connected();
        ServerSession session = session(bob);
        int before = bob.writes.get();
        session.startBatch();
        session.startBatch();
        deliver(session, "m0");
        assertFalse(session.endBatch());
        assertEquals(before, bob.writes.get());
        assertTrue(session.endBatch());
        assertEquals(before + 1, bob.writes.get());
        assertEquals(List.of("m0"), data(drain(bob)));
        assertThrows(IllegalStateException.class, session::endBatch);
    }

    // --- per-session listeners and private delivery

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void sessionMessageListenerDropsAMessageForThatSessionOnly(boolean push) {
        TestClient alice = new TestClient(server, push).connected();
        TestClient bob = new TestClient(server, push).connected();
        TestClient carol = new TestClient(server, push).connected();
        bob.subscribe("/chat/room");
        carol.subscribe("/chat/room");
        ServerSession bobSession = session(bob);
        ServerSession aliceSession = session(alice);
        List<String> told = new CopyOnWriteArrayList<>();
        bobSession.addListener((ServerSession.MessageListener) (session, sender, message) -> {
            told.add((session == bobSession) + ":" + (sender == aliceSession) + ":" + message.getData());
            return !"secret".equals(message.getData());
        });

        assertEquals(true, alice.publish("/chat/room", "secret").get("successful"));
        assertEquals(true, alice.publish("/chat/room", "public").get("successful"));

        assertEquals(List.of("true:true:secret", "true:true:public"), told);
        assertEquals(List.of("public"), data(drain(bob)));
        assertEquals(List.of("secret", "public"), data(drain(carol)));
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void deliverReachesOnlyThatSessionAndNoChannelListener(boolean push) {
        List<Object> heard = new CopyOnWriteArrayList<>();
        server.createChannelIfAbsent("/chat/room", channel ->
                channel.addListener((ServerChannel.MessageListener) (from, c, message) -> heard.add(message.getData())));
        TestClient bob = new TestClient(server, push).connected();
        TestClient carol = new TestClient(server, push).connected();
        bob.subscribe("/chat/room");
        carol.subscribe("/chat/room");

        assertTrue(deliver(session(bob), "private"));

        List<Map<String, Object>> received = drain(bob);
        assertEquals(List.of("private"), data(received));
        assertEquals("/chat/room", received.get(0).get("channel"));
        assertTrue(drain(carol).isEmpty(), "other subscribers of the channel do not get it");
        assertTrue(heard.isEmpty(), "channel listeners do not see it");
    }
}
