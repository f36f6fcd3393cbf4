package io.bayeux.load;

import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LedgerTest {
    @Test
    void everyClientJoinsDistinctRoomsAndTheSameSeedGivesTheSameRooms() {
        Ledger a = new Ledger(50, 20, 5, 7, true);
        Ledger b = new Ledger(50, 20, 5, 7, true);
        for (int c = 0; c < 50; c++) {
            int[] rooms = a.roomsOf(c);
            assertEquals(5, Arrays.stream(rooms).distinct().count());
            assertTrue(Arrays.stream(rooms).allMatch(r -> r >= 0 && r < 20));
            assertEquals(Arrays.toString(rooms), Arrays.toString(b.roomsOf(c)));
        }
    }

    @Test
    void expectsOneDeliveryPerSubscriberIncludingThePublisher() {
        Ledger ledger = new Ledger(3, 1, 1, 1, true);
        Ledger.Stamp stamp = ledger.stamp(0, 0);
        assertEquals(3, ledger.counts().expected());
        assertTrue(ledger.receiver(0).arrived(0, stamp.roomSeq(), 0, stamp.pubSeq()));
        assertTrue(ledger.receiver(1).arrived(0, stamp.roomSeq(), 0, stamp.pubSeq()));
        assertFalse(ledger.receiver(1).arrived(0, stamp.roomSeq(), 0, stamp.pubSeq()));
        Counts counts = ledger.counts();
        assertEquals(3, counts.received());
        assertEquals(1, counts.duplicated());
        assertEquals(1, counts.lost());
        assertEquals(0, counts.outOfOrder());
    }

    @Test
    void withoutSelfDeliveryThePublishersOwnCopyIsUnexpected() {
        Ledger ledger = new Ledger(3, 1, 1, 1, false);
        Ledger.Stamp stamp = ledger.stamp(2, 0);
        assertEquals(2, ledger.counts().expected());
        ledger.receiver(0).arrived(0, stamp.roomSeq(), 2, stamp.pubSeq());
        ledger.receiver(1).arrived(0, stamp.roomSeq(), 2, stamp.pubSeq());
        ledger.receiver(2).arrived(0, stamp.roomSeq(), 2, stamp.pubSeq());
        Counts counts = ledger.counts();
        assertEquals(0, counts.lost());
        assertEquals(1, counts.unexpected());
    }

    @Test
    void aFailedPublishIsNotExpectedAndALateCopyIsCountedApart() {
        Ledger ledger = new Ledger(2, 1, 1, 1, true);
        Ledger.Stamp ok = ledger.stamp(0, 0);
        Ledger.Stamp failed = ledger.stamp(0, 0);
        ledger.receiver(0).arrived(0, failed.roomSeq(), 0, failed.pubSeq());
        ledger.publishFailed(failed);
        ledger.receiver(1).arrived(0, failed.roomSeq(), 0, failed.pubSeq());
        ledger.receiver(0).arrived(0, ok.roomSeq(), 0, ok.pubSeq());
        ledger.receiver(1).arrived(0, ok.roomSeq(), 0, ok.pubSeq());
        Counts counts = ledger.counts();
        assertEquals(1, counts.failedPublishes());
        assertEquals(2, counts.expected());
        assertEquals(0, counts.lost());
        assertEquals(0, counts.duplicated());
        assertEquals(2, counts.lateFailed());
    }

    @Test
    void aPublishersMessagesArrivingOutOfOrderAreCounted() {
        Ledger ledger = new Ledger(2, 2, 2, 1, true);
        Ledger.Stamp first = ledger.stamp(0, 0);
        Ledger.Stamp second = ledger.stamp(0, 1);
        ledger.receiver(1).arrived(1, second.roomSeq(), 0, second.pubSeq());
        ledger.receiver(1).arrived(0, first.roomSeq(), 0, first.pubSeq());
        assertEquals(1, ledger.counts().outOfOrder());
    }

    @Test
    void meanDeliveriesPerMessageWeighsRoomsByHowOftenTheyAreChosen() {
        // Two clients in the only room: every message reaches both.
        assertEquals(2.0, new Ledger(2, 1, 1, 1, true).deliveriesPerMessage(), 1e-9);
        assertEquals(1.0, new Ledger(2, 1, 1, 1, false).deliveriesPerMessage(), 1e-9);
    }
}
