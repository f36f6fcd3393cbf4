package io.bayeux.oort.object;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class PartsTest {
    private static final String LOCAL = "http://local/cometd";
    private static final String OTHER = "http://other/cometd";
    private static final long LIMIT = 10;
    /** A System.nanoTime() value: any but 0, which marks an owner seen joined. */
    private static final long T0 = 1_000;

    private final Parts<Long> parts = new Parts<>(LOCAL);

    @Test
    void infosListThisNodesPartFirst() {
        parts.put(OTHER, info(OTHER, 2L));
        parts.put(LOCAL, info(LOCAL, 1L));
        assertEquals(List.of(1L, 2L), parts.infos().stream().map(Info::getObject).toList());
    }

    @Test
    void aPartOfANodeNotJoinedForTheFailureTimeoutIsStaleButNeverThisNodes() {
        parts.put(LOCAL, info(LOCAL, 1L));
        parts.put(OTHER, info(OTHER, 2L));
        assertEquals(List.of(), parts.stale(Set.of(), T0, LIMIT));
        assertEquals(List.of(OTHER), parts.stale(Set.of(), T0 + LIMIT + 1, LIMIT));
    }

    @Test
    void aNodeSeenJoinedAgainStartsItsWaitAnew() {
        parts.put(OTHER, info(OTHER, 2L));
        parts.stale(Set.of(), T0, LIMIT);
        parts.stale(Set.of(OTHER), T0 + 5, LIMIT);
        assertEquals(List.of(), parts.stale(Set.of(), T0 + LIMIT + 1, LIMIT));
    }

    @Test
    void aRemovedPartIsGone() {
        parts.put(OTHER, info(OTHER, 2L));
        assertEquals(2L, parts.remove(OTHER).info.getObject());
        assertNull(parts.get(OTHER));
    }

    private static Info<Long> info(String owner, long value) {
        return new Info<>(LOCAL, owner, "counter", value, 1);
    }
}
