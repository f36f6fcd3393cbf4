package io.bayeux.server.internal;

import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.Scheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connect that {@link ConnectionImpl#handle} was about to hold, refused by its session
 * (messages are due and the gather time has passed), while its connection closes on another
 * thread: when the close's cancel of the held batch wins, the cancel alone finishes the batch.
 *
 * <p>The close cannot be timed from outside within the microseconds of the refusal, so the
 * scheduler runs it: the session reads the time, under its lock, to decide that the gather time
 * has passed (see {@link RaceScheduler}). Run there, the close cancels the batch after
 * {@code handle} added it to the connection's pending batches and before {@code handle}'s own
 * {@code markDone()}: what a close on another thread does when it gets to the batch in that
 * window (on another thread it would wait for the session's lock in {@code released}, which
 * changes nothing for {@code handle}: its {@code markDone()} has lost either way).
 */
class RefusedHoldTest {
    private static final long GATHER = 100;
    private static final String BROWSER = "0123456789abcdef";

    private final RaceScheduler scheduler = new RaceScheduler();
    private BayeuxServerImpl server;

    private void start(int maxSessionsPerBrowser) {
        server = new BayeuxServerImpl(BayeuxServerConfig.builder().scheduler(scheduler).connectGather(Duration.ofMillis(GATHER))
                .maxSessionsPerBrowser(maxSessionsPerBrowser).executor(Runnable::run).build()).start();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    /**
     * With a limit of two: the close releases the browser hold the refused connect took, and the
     * count is back to the one of the other tab still holding. A second release would bring it to
     * zero and let two more tabs hold. (With a limit of one, the second release would find no
     * entry left and change nothing.)
     */
    @Test
    void aConnectRefusedAsItsConnectionClosesGivesBackItsBrowserHoldOnlyOnce() {
        start(2);
        TestClient refused = new TestClient(server, BROWSER).connected();
        TestClient holding = new TestClient(server, BROWSER).connected();
        TestClient third = new TestClient(server, BROWSER).connected();
        TestClient fourth = new TestClient(server, BROWSER).connected();
        refused.subscribe("/news");
        refused.receiveOften(scheduler.time, "/news");
        assertFalse(holding.connect().isDone());
        // Queued while the tab holds no connect; its last reply is the gather time ago.
        server.getChannel("/news").publish(null, "news");
        scheduler.time.advance(GATHER);

        scheduler.atHold(() -> refused.connection().close());
        refused.connect();
        assertTrue(scheduler.fired(), "the close ran as the session refused the hold");

        assertFalse(third.connect().isDone(), "one tab holds a connect: a second may");
        CompletableFuture<List<Map<String, Object>>> advised = fourth.connect();
        assertTrue(advised.isDone(), "two tabs hold connects: a third is answered at once, not held");
        Map<String, Object> reply = TestClient.reply(advised.join(), "/meta/connect");
        @SuppressWarnings("unchecked")
        Map<String, Object> advice = (Map<String, Object>) reply.get("advice");
        assertEquals(true, advice == null ? null : advice.get("multiple-clients"), reply.toString());
    }

    /**
     * On a WebSocket whose session takes messages in connect replies only: the messages the
     * refused connect would have carried stay queued for the session's next connect, on the
     * connection the client opens again, instead of going out to the closed one.
     */
    @Test
    void aConnectRefusedAsItsConnectionClosesLeavesItsMessagesForTheNextConnect() {
        start(BayeuxServerConfig.DEFAULT_MAX_SESSIONS_PER_BROWSER);
        TestClient client = new TestClient(server, true).connected();
        client.subscribe("/news");
        server.getSession(client.clientId()).setMetaConnectDeliveryOnly(true);
        client.receiveOften(scheduler.time, "/news");
        server.getChannel("/news").publish(null, "news");
        scheduler.time.advance(GATHER);

        scheduler.atHold(() -> client.connection().close());
        CompletableFuture<List<Map<String, Object>>> refused = client.connect();
        assertTrue(scheduler.fired(), "the close ran as the session refused the hold");

        TestClient reopened = new TestClient(server, true);
        reopened.clientId(client.clientId());
        CompletableFuture<List<Map<String, Object>>> next = reopened.connect();
        // The cancel counts as a connect's end: the gather time starts again from it.
        scheduler.time.advance(GATHER);
        assertTrue(next.isDone(), "the queued message answers the next connect once the gather time has passed");
        assertEquals(List.of("news"), TestClient.deliveries(next.join(), "/news").stream().map(m -> m.get("data")).toList());
        assertFalse(refused.isDone(), "nothing was written to the closed connection");
        assertTrue(client.pushed.isEmpty(), "nothing was pushed to it either: " + client.pushed);
    }

    /**
     * The hand-driven scheduler, and an action armed to run once, at the first reading of the
     * time inside {@link ConnectHold#hold}: the session reads it there (in
     * {@code gatherWait}) to decide whether the gather time has passed, and refuses the hold
     * when it has. {@link #fired()} tells whether it ran, so that a change of where the time is
     * read fails the tests instead of letting the race go untested.
     */
    private static final class RaceScheduler implements Scheduler {
        final ManualScheduler time = new ManualScheduler();
        private final AtomicReference<Runnable> armed = new AtomicReference<>();
        private volatile boolean fired;

        void atHold(Runnable action) {
            armed.set(action);
        }

        boolean fired() {
            return fired;
        }

        @Override
        public long now() {
            long now = time.now();
            if (armed.get() != null && inHold()) {
                // Disarmed before it runs: the close reads the time too, still inside hold.
                Runnable action = armed.getAndSet(null);
                if (action != null) {
                    fired = true;
                    action.run();
                }
            }
            return now;
        }

        @Override
        public Cancellable schedule(Runnable task, long delayMillis) {
            return time.schedule(task, delayMillis);
        }

        private static boolean inHold() {
            return StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).walk(frames -> frames.anyMatch(
                    frame -> frame.getDeclaringClass() == ConnectHold.class && frame.getMethodName().equals("hold")));
        }
    }
}
