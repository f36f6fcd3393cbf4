package io.bayeux.load;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SeqSetTest {
    @Test
    void countsDistinctNumbersAndRefusesRepeats() {
        SeqSet set = new SeqSet();
        assertTrue(set.add(0));
        assertTrue(set.add(2));
        assertFalse(set.add(2));
        assertTrue(set.add(1));
        assertFalse(set.add(0));
        assertEquals(3, set.distinct());
    }

    @Test
    void slidesPastLongRunsAndStillSeesOldRepeats() {
        SeqSet set = new SeqSet();
        for (long i = 0; i < 100_000; i++) {
            assertTrue(set.add(i));
        }
        assertFalse(set.add(5));
        assertFalse(set.add(99_999));
        assertEquals(100_000, set.distinct());
    }

    @Test
    void keepsAHoleOpenUntilItFills() {
        SeqSet set = new SeqSet();
        for (long i = 1; i < 10_000; i++) {
            set.add(i);
        }
        assertTrue(set.add(0));
        assertFalse(set.add(9_000));
        assertEquals(10_000, set.distinct());
    }

    @Test
    void skippedNumbersAreNotCountedButRefusedLater() {
        SeqSet set = new SeqSet();
        set.skip(0);
        assertTrue(set.add(1));
        assertFalse(set.add(0));
        assertEquals(1, set.distinct());
    }

    @Test
    void agreesWithASetOnNumbersArrivingSlightlyOutOfOrder() {
        SeqSet set = new SeqSet();
        java.util.Set<Long> reference = new java.util.HashSet<>();
        java.util.Random random = new java.util.Random(7);
        for (long base = 0; base < 50_000; base += 8) {
            for (int k = 0; k < 12; k++) {
                // Mostly the next few numbers, sometimes one already seen, now and then one far ahead.
                long seq = random.nextInt(10) == 0 ? base + random.nextInt(6_000) : Math.max(0, base - 4 + random.nextInt(16));
                assertEquals(reference.add(seq), set.add(seq), "seq " + seq);
            }
        }
        assertEquals(reference.size(), set.distinct());
    }
}
