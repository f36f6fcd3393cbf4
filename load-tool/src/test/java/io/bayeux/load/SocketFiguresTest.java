package io.bayeux.load;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** {@link SocketFigures}: {@code ss -tinH state established} output, and what two samples tell. */
class SocketFiguresTest {
    private static String ss(long sent1, long segs1, long sent2, long segs2) {
        return "0      0               127.0.0.1:8080          127.0.0.1:40001\n"
                + "\t cubic wscale:7,7 rto:204 rtt:0.01/0.005 mss:65483 bytes_sent:" + sent1 + " bytes_acked:" + sent1
                + " bytes_received:10 segs_out:" + segs1 + " segs_in:3 data_segs_out:2\n"
                + "0      0               127.0.0.1:8080          127.0.0.1:40002\n"
                + "\t cubic bytes_sent:" + sent2 + " bytes_received:10 segs_out:" + segs2 + " segs_in:3\n";
    }

    @Test
    void twoSamplesGiveWhatEachConnectionSentInBetween() {
        SocketFigures.Sample before = SocketFigures.parse(ss(1000, 10, 500, 5));
        SocketFigures.Sample after = SocketFigures.parse(ss(3000, 30, 1500, 9));
        RunResult.Wire wire = after.since(before, 100);
        assertEquals(3000, wire.bytesSent());
        assertEquals(24, wire.segmentsSent());
        assertEquals(30.0, wire.bytesPerDelivery());
        assertEquals(0.24, wire.segmentsPerDelivery(), 1e-9);
    }

    @Test
    void aConnectionOpenedInBetweenCountsFromZero() {
        SocketFigures.Sample before = SocketFigures.parse("");
        RunResult.Wire wire = SocketFigures.parse(ss(100, 1, 200, 2)).since(before, 0);
        assertEquals(300, wire.bytesSent());
        assertEquals(3, wire.segmentsSent());
        assertNull(wire.bytesPerDelivery(), "no deliveries: no ratio");
    }
}
