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
}
