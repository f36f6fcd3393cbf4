package io.bayeux.server.internal;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Sweeper}: a sweep looks only at the sessions between connects and those that connect
 * again and again, so idle sessions that hold their connect cost it nothing after two sweeps,
 * and it still removes every session that expires; after a
 * burst of sessions left, the registry gives back the table it grew to.
 */
class SweeperTest extends ServerTestSupport {
    private Sweeper sweeper() {
        return server.sweeper();
    }

    @Test
    void sessionsHoldingTheirConnectLeaveTheWatchAtTheSecondSweepAndTheOthersStay() {
        TestClient holding = new TestClient(server, true).connected();
        TestClient between = new TestClient(server, true).connected();
        assertEquals(2, sweeper().countingSessions(), "both between connects after the first connect's reply");

        CompletableFuture<List<Map<String, Object>>> held = holding.connect();
        assertFalse(held.isDone(), "the server holds it");
        assertEquals(2, sweeper().countingSessions(), "a connect held leaves the list as it is");
        sweeper().sweep();
        assertEquals(2, sweeper().countingSessions(), "held at one sweep: still watched");
        sweeper().sweep();
        assertEquals(1, sweeper().countingSessions(), "held at two sweeps in a row: only the session without a held connect");

        scheduler.advance(11_000);
        assertNotNull(server.getSession(holding.clientId()), "a held connect keeps its session");
        assertNull(server.getSession(between.clientId()), "no connect for longer than maxInterval: expired");
        assertEquals(0, sweeper().countingSessions(), "the expired session is no longer watched");
    }

    @Test
    void aSessionThatConnectsAgainBetweenSweepsStaysWatchedAndExpiresOnceItStops() {
        TestClient polling = new TestClient(server, false).connected();
        polling.subscribe("/a");
        for (int sweep = 0; sweep < 5; sweep++) {
            CompletableFuture<List<Map<String, Object>>> held = polling.connect();
            scheduler.advance(server.config().sweepPeriod().toMillis());
            assertFalse(held.isDone(), "held over the sweep");
            assertEquals(1, sweeper().countingSessions(), "watched, though held at every sweep: it counted between them");
            server.getChannel("/a").publish(null, "m" + sweep);
            assertTrue(held.isDone(), "answered with the message");
        }
        scheduler.advance(server.config().maxInterval().toMillis() + 2 * server.config().sweepPeriod().toMillis());
        assertNull(server.getSession(polling.clientId()), "no connect after the last reply: expired");
        assertEquals(0, sweeper().countingSessions());
    }

    @Test
    void aHeldConnectAnsweredAtItsTimeoutStartsTheCountAgain() {
        TestClient client = new TestClient(server, true).connected();
        CompletableFuture<List<Map<String, Object>>> held = client.connect();
        scheduler.advance(2 * server.config().sweepPeriod().toMillis());
        assertEquals(0, sweeper().countingSessions());

        scheduler.advance(server.config().timeout().toMillis() + 1);
        assertTrue(held.isDone() || !client.pushed.isEmpty(), "the hold ended at its timeout");
        assertEquals(1, sweeper().countingSessions(), "counting until the next connect");
        scheduler.advance(server.config().maxInterval().toMillis() + 1_000);
        assertNull(server.getSession(client.clientId()), "no next connect: expired");
    }

    @Test
    void aDisconnectedSessionLeavesTheWatchAtTheNextSweep() {
        TestClient client = new TestClient(server, true).connected();
        client.disconnect();
        scheduler.advance(server.config().sweepPeriod().toMillis());
        assertEquals(0, sweeper().countingSessions());
    }

    @Test
    void aBurstOfSessionsThatLeftGivesBackTheRegistrysTableAtTheNextSweep() {
        List<TestClient> burst = new java.util.ArrayList<>();
        for (int i = 0; i < 2 * ShrinkingMap.MIN_PEAK; i++) {
            burst.add(new TestClient(server, true).connected());
        }
        TestClient stays = new TestClient(server, true).connected();
        assertTrue(server.sessionRegistry().peak() > 2 * ShrinkingMap.MIN_PEAK, "the registry grew with the burst");
        scheduler.advance(server.config().sweepPeriod().toMillis());
        assertTrue(server.sessionRegistry().peak() > 2 * ShrinkingMap.MIN_PEAK, "kept while the burst is there");

        burst.forEach(TestClient::disconnect);
        scheduler.advance(server.config().sweepPeriod().toMillis());

        assertEquals(1, server.sessionRegistry().peak(), "its table now sized for the one session left");
        assertNotNull(server.getSession(stays.clientId()), "which is still found");
    }
}
