package io.bayeux.metrics;

import io.bayeux.server.internal.ServerCensus;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SessionCensusTest {
    private final AtomicInteger walks = new AtomicInteger();
    private final AtomicLong clock = new AtomicLong();
    private final SessionCensus census = new SessionCensus(
            () -> new ServerCensus.SessionCounts(Map.of("websocket", walks.incrementAndGet()), 0), 3, clock::get);

    @Test
    void theGaugesOfOneScrapeShareOneWalk() {
        for (int gauge = 0; gauge < 3; gauge++) {
            assertEquals(1, census.countsFor(gauge).sessions("websocket"));
        }
        assertEquals(1, walks.get());
        assertEquals(0, census.countsFor(0).sessions("long-polling"), "a transport without sessions");
    }

    @Test
    void aGaugeReadAgainWalksAgain() {
        census.countsFor(0);
        census.countsFor(1);
        assertEquals(2, census.countsFor(0).sessions("websocket"), "the next scrape");
        assertEquals(2, census.countsFor(1).sessions("websocket"), "of the same walk as its first gauge");
        assertEquals(2, walks.get());
    }

    @Test
    void countsOlderThanTheMaximumAgeAreNotServed() {
        census.countsFor(0);
        clock.addAndGet(SessionCensus.MAX_AGE.toNanos() + 1);
        assertEquals(2, census.countsFor(1).sessions("websocket"));
    }
}
