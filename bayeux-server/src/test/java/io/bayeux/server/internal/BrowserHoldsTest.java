package io.bayeux.server.internal;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The count of long-polling connects each browser holds. */
class BrowserHoldsTest {
    private final BrowserHolds holds = new BrowserHolds();

    @Test
    void aBrowserHoldsUpToTheLimitAndAgainOnceOneIsReleased() {
        BrowserHolds.Count first = holds.tryAcquire("b", 2);
        assertNotNull(first);
        assertNotNull(holds.tryAcquire("b", 2));
        assertNull(holds.tryAcquire("b", 2), "a third connect past a limit of 2");
        assertEquals(2, holds.holds("b"));
        assertNotNull(holds.tryAcquire("other", 2), "each browser has its own count");
        holds.release(first);
        assertEquals(1, holds.holds("b"));
        assertEquals(1, holds.holds("other"), "a release counts down its own browser only");
        assertNotNull(holds.tryAcquire("b", 2));
        assertNull(holds.tryAcquire("b", 2));
    }

    @Test
    void noLimitCountsNothingAndALimitOfZeroRefusesAll() {
        BrowserHolds.Count uncounted = holds.tryAcquire("b", -1);
        assertNotNull(uncounted);
        assertEquals(0, holds.holds("b"));
        holds.release(uncounted);
        assertNull(holds.tryAcquire("b", 0));
        assertEquals(0, holds.browsers());
    }

    @Test
    void aSecondReleaseDoesNotCountBelowZero() {
        BrowserHolds.Count count = holds.tryAcquire("b", 1);
        holds.release(count);
        holds.release(count);
        assertEquals(0, holds.holds("b"));
        assertNotNull(holds.tryAcquire("b", 1));
        assertNull(holds.tryAcquire("b", 1), "the second release did not count below zero");
    }

    @Test
    void aSweepForgetsTheBrowsersThatHoldNothingAndKeepsTheOthers() {
        holds.release(holds.tryAcquire("idle", 1));
        BrowserHolds.Count holding = holds.tryAcquire("holding", 1);
        assertEquals(2, holds.browsers(), "a browser at zero stays until the sweep");
        holds.sweep();
        assertEquals(1, holds.browsers());
        assertEquals(1, holds.holds("holding"));
        assertNull(holds.tryAcquire("holding", 1), "a sweep leaves a held count as it was");
        assertNotNull(holds.tryAcquire("idle", 1), "a swept browser is counted again from its next hold");
        assertEquals(2, holds.browsers());
        holds.release(holding);
        assertEquals(0, holds.holds("holding"), "the count given before the sweep is the one in the map");
        assertNotNull(holds.tryAcquire("holding", 1));
    }

    @Test
    void holdsAndReleasesOnSeveralThreadsDuringSweepsNeverPassTheLimitAndEndAtZero() throws Exception {
        int max = 2;
        int threads = 4;
        int cycles = 20_000;
        AtomicInteger inside = new AtomicInteger();
        AtomicReference<String> failure = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(threads);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                try {
                    for (int i = 0; i < cycles; i++) {
                        BrowserHolds.Count count = holds.tryAcquire("b", max);
                        if (count != null) {
                            if (inside.incrementAndGet() > max) {
                                failure.compareAndSet(null, "more than " + max + " held at once");
                            }
                            inside.decrementAndGet();
                            holds.release(count);
                        }
                    }
                } finally {
                    done.countDown();
                }
            });
            workers.add(worker);
            worker.start();
        }
        while (!done.await(1, TimeUnit.MILLISECONDS)) {
            holds.sweep();
        }
        for (Thread worker : workers) {
            worker.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertNull(failure.get());
        assertEquals(0, holds.holds("b"));
        holds.sweep();
        assertEquals(0, holds.browsers());
        assertNotNull(holds.tryAcquire("b", max));
        assertNotNull(holds.tryAcquire("b", max));
        assertNull(holds.tryAcquire("b", max), "the count is exact after the run");
    }
}
