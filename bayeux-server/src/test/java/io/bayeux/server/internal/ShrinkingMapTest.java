package io.bayeux.server.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link ShrinkingMap}: when it copies, and that a copy loses no write made during it. */
class ShrinkingMapTest {
    @Test
    void copiesOnlyOnceFewerThanAQuarterOfABigEnoughPeakRemain() {
        ShrinkingMap<Integer, String> map = new ShrinkingMap<>();
        for (int i = 0; i < ShrinkingMap.MIN_PEAK - 1; i++) {
            map.put(i, "v" + i);
        }
        for (int i = 0; i < ShrinkingMap.MIN_PEAK - 1; i++) {
            map.remove(i, "v" + i);
        }
        assertFalse(map.compact(), "a small peak is not worth a copy");

        for (int i = 0; i < 4000; i++) {
            map.put(i, "v" + i);
        }
        for (int i = 0; i < 2999; i++) {
            map.remove(i, "v" + i);
        }
        assertFalse(map.compact(), "1,001 of a peak of 4,000 remain: more than a quarter");
        map.remove(2999, "v2999");
        assertTrue(map.compact(), "1,000 remain: a quarter");
        assertEquals(1000, map.peak(), "the peak starts again from what remains");
        assertEquals(1000, map.size());
        assertEquals("v3500", map.get(3500), "the entries are all in the new table");
        assertEquals(1000, map.values().size(), "and the view of the values sees the new table");
    }

    @Test
    @Timeout(60)
    void noWriteIsLostWhileCompactionsCopy() throws Exception {
        ShrinkingMap<String, Integer> map = new ShrinkingMap<>();
        int writers = 4;
        int rounds = 20;
        int burst = 500;
        // Each round: every writer puts a burst; then, while the main thread compacts over and over,
        // removes it and puts one key that stays: copies made while it removes race with its writes.
        CyclicBarrier burstWritten = new CyclicBarrier(writers + 1);
        CyclicBarrier burstRemoved = new CyclicBarrier(writers + 1);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    for (int round = 0; round < rounds; round++) {
                        for (int i = 0; i < burst; i++) {
                            map.put(writer + ":" + round + ":" + i, i);
                        }
                        burstWritten.await(10, TimeUnit.SECONDS);
                        for (int i = 0; i < burst; i++) {
                            map.remove(writer + ":" + round + ":" + i, i);
                            if (i == burst / 2) {
                                map.put("stays " + writer + ":" + round, round);
                            }
                        }
                        burstRemoved.await(10, TimeUnit.SECONDS);
                    }
                } catch (Exception x) {
                    throw new IllegalStateException(x);
                }
            }));
        }
        int copies = 0;
        for (int round = 0; round < rounds; round++) {
            burstWritten.await(10, TimeUnit.SECONDS);
            while (burstRemoved.getNumberWaiting() < writers) {
                copies += map.compact() ? 1 : 0;
            }
            burstRemoved.await(10, TimeUnit.SECONDS);
            copies += map.compact() ? 1 : 0;
        }
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        }

        assertTrue(copies > 0, "the first round's burst at least was given back: " + copies);
        assertEquals(writers * rounds, map.size(), "every burst removed, every key that stays there");
        for (int w = 0; w < writers; w++) {
            for (int round = 0; round < rounds; round++) {
                assertEquals(round, map.get("stays " + w + ":" + round), "writer " + w + ", round " + round);
            }
        }
    }
}
