package io.bayeux.oort.seti;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Times are given, not read: a failure timeout of 10 ns passes in one step. */
class DeparturesTest {
    private static final long LIMIT = 10;
    private static final String A = "http://a/cometd";
    private static final String B = "http://b/cometd";

    private final Departures departures = new Departures();

    @Test
    void aNodeThatLeftHasItsPresenceMessagesDroppedUntilItSendsASnapshot() {
        departures.removed(A, true, 0);
        assertFalse(departures.accepts(A, false));
        assertTrue(departures.accepts(A, true));
        assertTrue(departures.accepts(A, false));
    }

    @Test
    void aDepartureIsForgottenAfterTheFailureTimeout() {
        departures.removed(A, true, 0);
        departures.stale(Set.of(), Set.of(), LIMIT + 1, LIMIT);
        assertTrue(departures.accepts(A, false));
    }

    @Test
    void aNodeNeverJoinedIsNotLate() {
        departures.removed(A, false, 0);
        assertTrue(departures.accepts(A, false));
    }

    @Test
    void aNodeWithUsersNotJoinedForTheFailureTimeoutIsStale() {
        assertEquals(List.of(), departures.stale(Set.of(A, B), Set.of(B), 0, LIMIT));
        assertEquals(List.of(), departures.stale(Set.of(A, B), Set.of(B), LIMIT, LIMIT));
        assertEquals(List.of(A), departures.stale(Set.of(A, B), Set.of(B), LIMIT + 1, LIMIT));
    }

    @Test
    void aNodeThatJoinsAgainStartsItsWaitAnew() {
        departures.stale(Set.of(A), Set.of(), 0, LIMIT);
        departures.stale(Set.of(A), Set.of(A), 5, LIMIT);
        assertEquals(List.of(), departures.stale(Set.of(A), Set.of(), LIMIT + 1, LIMIT));
        assertEquals(List.of(A), departures.stale(Set.of(A), Set.of(), 2 * LIMIT + 2, LIMIT));
    }
}
