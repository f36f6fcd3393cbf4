package io.bayeux.server.internal;

import io.bayeux.api.Promise;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerSession;
import io.bayeux.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pushes from the endpoints' event loops: one task per loop for a burst of publishes, one
 * write and one flush per connection and round, nothing written to an unwritable endpoint
 * until it is writable again, and the server counted behind only with readers that read.
 */
class LoopFlusherTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private BayeuxServerImpl server;

    /** An event loop run by hand: the test decides when its tasks run. */
    private static final class ManualLoop implements Executor {
        final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
        int submitted;

        @Override
        public synchronized void execute(Runnable task) {
            tasks.add(task);
            submitted++;
        }

        void runAll() {
            while (true) {
                Runnable task;
                synchronized (this) {
                    task = tasks.poll();
                }
                if (task == null) {
                    return;
                }
                task.run();
            }
        }
    }

    private void start(int maxQueue) {
        server = new BayeuxServerImpl(scheduler.config().executor(Runnable::run)
                .maxQueue(maxQueue).build()).start();
        server.createChannelIfAbsent("/room");
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    private TestClient subscriber(ManualLoop loop) {
        TestClient client = new TestClient(server, true, loop).connected();
        client.subscribe("/room");
        // The connect the client keeps pending, as a WebSocket client does.
        client.connect();
        loop.runAll();
        client.pushed.clear();
        client.writes.set(0);
        client.flushes.set(0);
        loop.submitted = 0;
        return client;
    }

    private void publish(int from, int to) {
        ServerChannel channel = server.getChannel("/room");
        for (int i = from; i < to; i++) {
            channel.publish(null, i, Promise.noop());
        }
    }

    private static List<Object> data(TestClient client) {
        List<Object> data = new ArrayList<>();
        for (Map<String, Object> message : client.pushed) {
            data.add(((Number) message.get("data")).intValue());
        }
        return data;
    }

    @Test
    void aBurstOfPublishesCostsEachLoopOneTaskAndEachConnectionOneFrameAndOneFlush() {
        start(-1);
        ManualLoop a = new ManualLoop();
        ManualLoop b = new ManualLoop();
        List<TestClient> onA = List.of(subscriber(a), subscriber(a), subscriber(a));
        List<TestClient> onB = List.of(subscriber(b), subscriber(b));

        publish(0, 10);

        assertEquals(1, a.submitted, "tasks submitted to loop a for 10 publishes to 3 sessions");
        assertEquals(1, b.submitted, "tasks submitted to loop b for 10 publishes to 2 sessions");
        for (TestClient client : onA) {
            assertEquals(0, client.writes.get(), "nothing is written before the loop runs");
        }
        a.runAll();
        b.runAll();
        for (TestClient client : List.of(onA.get(0), onA.get(1), onA.get(2), onB.get(0), onB.get(1))) {
            assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), data(client), "all, once, in order");
            assertEquals(1, client.writes.get(), "one frame");
            assertEquals(1, client.flushes.get(), "one flush");
        }
        publish(10, 11);
        assertEquals(2, a.submitted, "the next publish after a round submits again");
    }

    @Test
    void aRoundThatWritesToManyConnectionsFlushesThemAFewAtATimeNotAllAtItsEnd() {
        start(-1);
        ManualLoop loop = new ManualLoop();
        List<TestClient> clients = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            clients.add(subscriber(loop));
        }
        // At each flush: how many connections were written to and are not flushed yet.
        int[] mostWaiting = {0};
        Runnable count = () -> {
            int waiting = 0;
            for (TestClient client : clients) {
                waiting += client.writes.get() - client.flushes.get();
            }
            mostWaiting[0] = Math.max(mostWaiting[0], waiting);
        };
        clients.forEach(client -> client.onFlush = count);

        publish(0, 1);
        assertEquals(1, loop.submitted, "one round for the broadcast");
        loop.runAll();

        for (TestClient client : clients) {
            assertEquals(List.of(0), data(client), "the message, once");
            assertEquals(1, client.writes.get(), "one frame");
            assertEquals(1, client.flushes.get(), "one flush");
        }
        assertTrue(mostWaiting[0] <= LoopFlusher.FLUSH_EVERY,
                "written and waiting for their flush at most " + LoopFlusher.FLUSH_EVERY + " connections, not " + mostWaiting[0]);
    }

    @Test
    void aThreadsHeldListingsWaitForItsOutermostReleaseWhileAnotherThreadsListingGoesOutAsUsual() throws Exception {
        start(-1);
        ManualLoop a = new ManualLoop();
        ManualLoop b = new ManualLoop();
        TestClient onA = subscriber(a);
        TestClient onB = subscriber(b);

        LoopFlusher.hold();
        try {
            LoopFlusher.hold();
            publish(0, 3);
            LoopFlusher.release();
            assertEquals(0, a.submitted + b.submitted, "nothing reaches the loops while the thread holds");

            // Another thread's publish lists the sessions at once, and their rounds take what the hold queued too.
            Thread other = new Thread(() -> publish(3, 4));
            other.start();
            other.join();
            assertEquals(1, a.submitted, "loop a, for the other thread");
            assertEquals(1, b.submitted, "loop b, for the other thread");
            a.runAll();
            b.runAll();
            assertEquals(List.of(0, 1, 2, 3), data(onA));
            assertEquals(List.of(0, 1, 2, 3), data(onB));

            publish(4, 6);
            assertEquals(2, a.submitted + b.submitted, "held again: no more tasks");
        } finally {
            LoopFlusher.release();
        }
        assertEquals(2, a.submitted, "one task for loop a at the release");
        assertEquals(2, b.submitted, "one task for loop b at the release");
        a.runAll();
        b.runAll();
        for (TestClient client : List.of(onA, onB)) {
            assertEquals(List.of(0, 1, 2, 3, 4, 5), data(client), "all, once, in order");
            assertEquals(2, client.writes.get(), "one frame a round");
        }
        publish(6, 7);
        assertEquals(3, a.submitted, "released: a publish submits at once");
    }

    @Test
    void whatAThreadHoldsGoesOutAfterTheLongestHoldEvenWhileTheThreadStillHolds() {
        start(-1);
        ManualLoop a = new ManualLoop();
        TestClient client = subscriber(a);

        int timers;
        LoopFlusher.hold();
        try {
            publish(0, 2);
            scheduler.advance(LoopFlusher.MAX_HOLD_MILLIS - 1);
            assertEquals(0, a.submitted, "held, before the longest hold");
            scheduler.advance(1);
            assertEquals(1, a.submitted, "released by the watchdog");
            a.runAll();
            assertEquals(List.of(0, 1), data(client));

            // Held again from the next listing on, with a watchdog of its own.
            publish(2, 3);
            assertEquals(1, a.submitted);
            scheduler.advance(LoopFlusher.MAX_HOLD_MILLIS);
            assertEquals(2, a.submitted, "released by the second watchdog");
            a.runAll();
            timers = scheduler.pending();
            publish(3, 4);
            assertEquals(timers + 1, scheduler.pending(), "a third watchdog");
        } finally {
            LoopFlusher.release();
        }
        assertEquals(3, a.submitted, "the rest at the hold's end");
        a.runAll();
        assertEquals(List.of(0, 1, 2, 3), data(client), "all, once, in order");
        assertEquals(timers, scheduler.pending(), "the last watchdog was cancelled");
    }

    @Test
    void anUnwritableEndpointGetsNothingUntilItIsWritableAgainAndOthersAreNotHeldUp() {
        start(-1);
        ManualLoop loop = new ManualLoop();
        TestClient slow = subscriber(loop);
        TestClient fast = subscriber(loop);
        slow.writable = false;

        publish(0, 3);
        loop.runAll();
        assertEquals(0, slow.writes.get(), "an unwritable endpoint is not written to");
        assertEquals(List.of(0, 1, 2), data(fast));
        assertEquals(3, server.getSession(slow.clientId()).getQueueSize(), "its messages wait in its queue");

        slow.writable = true;
        slow.connection().writable();
        loop.runAll();
        assertEquals(List.of(0, 1, 2), data(slow), "what waited goes once it is writable, in one frame");
        assertEquals(1, slow.writes.get());
    }

    @Test
    void theServerIsBehindWithAReaderThatReadsButNotWithOneThatStalled() {
        start(10);
        ManualLoop loop = new ManualLoop();
        TestClient reader = subscriber(loop);
        TestClient stalled = subscriber(loop);
        stalled.stalled = true;
        stalled.writable = false;
        List<Runnable> caughtUp = new ArrayList<>();

        publish(0, 4);
        assertFalse(server.isBehind(), "4 of 10 waiting");
        publish(4, 5);
        assertTrue(server.isBehind(), "half the reader's queue waits");
        server.whenCaughtUp(() -> caughtUp.add(() -> { }));
        assertEquals(0, caughtUp.size());

        loop.runAll();
        assertFalse(server.isBehind(), "the reader's queue went out");
        assertEquals(1, caughtUp.size(), "told once caught up");
        assertEquals(5, server.getSession(stalled.clientId()).getQueueSize(), "the stalled reader never counted");

        // A reader that is not writable, but not stalled either, still counts until it drained.
        reader.writable = false;
        publish(5, 10);
        loop.runAll();
        assertTrue(server.isBehind(), "a slow reader that reads is the server's delay");
        reader.writable = true;
        reader.connection().writable();
        loop.runAll();
        assertFalse(server.isBehind());
        ServerSession session = server.getSession(reader.clientId());
        assertEquals(0, session.getQueueSize());
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), data(reader));
    }

    @Test
    void publishersOnManyThreadsWhileTheLoopsRunLoseNothingAndKeepEachPublishersOrder() throws Exception {
        start(-1);
        ExecutorService[] loops = {Executors.newSingleThreadExecutor(), Executors.newSingleThreadExecutor()};
        ExecutorService publishers = Executors.newFixedThreadPool(4);
        try {
            List<TestClient> clients = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                ExecutorService loop = loops[i % 2];
                TestClient client = new TestClient(server, true, loop).connected();
                client.subscribe("/room");
                client.connect();
                clients.add(client);
            }
            int perPublisher = 2000;
            List<Future<?>> done = new ArrayList<>();
            for (int p = 0; p < 4; p++) {
                int publisher = p;
                done.add(publishers.submit(() -> {
                    ServerChannel channel = server.getChannel("/room");
                    for (int n = 0; n < perPublisher; n++) {
                        channel.publish(null, publisher * 1_000_000 + n, Promise.noop());
                    }
                }));
            }
            for (Future<?> future : done) {
                future.get(30, TimeUnit.SECONDS);
            }
            for (TestClient client : clients) {
                Await.until(Duration.ofSeconds(30), () -> client.pushed.stream().filter(m -> "/room".equals(m.get("channel"))).count() >= 4L * perPublisher,
                        () -> 4L * perPublisher + " messages on /room; pushed " + client.pushed.size());
                int[] next = new int[4];
                for (Map<String, Object> message : List.copyOf(client.pushed)) {
                    if ("/room".equals(message.get("channel"))) {
                        int value = ((Number) message.get("data")).intValue();
                        int publisher = value / 1_000_000;
                        assertEquals(next[publisher]++, value % 1_000_000, "publisher " + publisher + "'s messages once, in order");
                    }
                }
                for (int p = 0; p < 4; p++) {
                    assertEquals(perPublisher, next[p], "every message of publisher " + p);
                }
            }
        } finally {
            publishers.shutdownNow();
            for (ExecutorService loop : loops) {
                loop.shutdownNow();
            }
        }
    }
}
