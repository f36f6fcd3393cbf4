package io.bayeux.client.ext;

import io.bayeux.api.Position;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DeliveredTest {
    private static Position at(long offset) {
        return new Position(offset, "e1");
    }

    @Test
    void inOrderEachOffsetOnceAndNothingAtOrBeforeTheStart() {
        Delivered delivered = new Delivered(at(10));
        assertFalse(delivered.deliver(at(10)), "the start counts as delivered");
        assertFalse(delivered.deliver(at(3)), "so does everything before it");
        assertTrue(delivered.deliver(at(11)));
        assertTrue(delivered.deliver(at(12)));
        assertFalse(delivered.deliver(at(11)), "twice");
        assertEquals(at(12), delivered.position());
    }

    @Test
    void aMessageThatComesAfterOneWithAHigherOffsetGoesThroughOnce() {
        Delivered delivered = new Delivered(at(0));
        // A reply carrying 632..1258 overtook the one carrying 1..631.
        for (long offset = 632; offset <= 1258; offset++) {
            assertTrue(delivered.deliver(at(offset)), "live " + offset);
        }
        for (long offset = 1; offset <= 631; offset++) {
            assertTrue(delivered.deliver(at(offset)), "late " + offset);
        }
        for (long offset = 0; offset <= 1258; offset++) {
            assertFalse(delivered.deliver(at(offset)), "again " + offset);
        }
        assertEquals(at(1258), delivered.position(), "the position is the highest, never moved back");
    }

    @Test
    void anyOrderWithinTheWindowDeliversEachOffsetExactlyOnce() {
        Random random = new Random(7);
        for (int round = 0; round < 50; round++) {
            long start = random.nextLong(1L << 40);
            Delivered delivered = new Delivered(at(start));
            List<Long> offsets = new ArrayList<>(LongStream.rangeClosed(start + 1, start + 3000).boxed().toList());
            // Shuffled within runs of up to 500: reordered, never by more than the window.
            for (int i = 0; i < offsets.size(); i += 500) {
                java.util.Collections.shuffle(offsets.subList(i, Math.min(offsets.size(), i + 500)), random);
            }
            List<Long> passed = new ArrayList<>();
            for (long offset : offsets) {
                if (delivered.deliver(at(offset))) {
                    passed.add(offset);
                }
                if (random.nextInt(4) == 0) {
                    assertFalse(delivered.deliver(at(offset)), "a copy of " + offset);
                }
            }
            assertEquals(offsets, passed, "round " + round + ": each once, as they came");
        }
    }

    @Test
    void anOffsetAWindowOrMoreBelowTheHighestCountsAsDelivered() {
        Delivered delivered = new Delivered(at(0));
        long high = Delivered.WINDOW + 10;
        assertTrue(delivered.deliver(at(high)));
        assertFalse(delivered.deliver(at(10)), "out of the window");
        assertTrue(delivered.deliver(at(11)), "the lowest offset the window still tells");
        assertTrue(delivered.deliver(at(high - 1)));
        // A jump of more than the window leaves no old bit behind.
        long far = high + 3L * Delivered.WINDOW;
        assertTrue(delivered.deliver(at(far)));
        assertTrue(delivered.deliver(at(far - 1)));
        assertTrue(delivered.deliver(at(far - Delivered.WINDOW + 1)));
        assertFalse(delivered.deliver(at(far - Delivered.WINDOW)));
    }

    @Test
    void anotherEpochStartsOverAndAPositionSetAheadCountsEverythingBeforeItAsDelivered() {
        Delivered delivered = new Delivered(at(5));
        assertTrue(delivered.deliver(at(9)));
        assertTrue(delivered.deliver(new Position(2, "e2")), "a lower offset of another epoch");
        assertFalse(delivered.deliver(new Position(1, "e2")), "the new epoch starts at its first message");
        assertTrue(delivered.deliver(new Position(4, "e2")));
        delivered.advance(new Position(10, "e2"));
        assertFalse(delivered.deliver(new Position(3, "e2")), "a gap before a position set from outside is not waited for");
        assertTrue(delivered.deliver(new Position(11, "e2")));
        delivered.advance(new Position(8, "e2"));
        assertEquals(new Position(11, "e2"), delivered.position(), "never moved back");
    }
}
