package io.bayeux.server.internal;

import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.spi.ServerObserver;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A push round's deliveries reach the observer once per transport, right before the flush, with the oldest arrival. */
class DeliveryTallyTest {
    private static final class Recorder implements ServerObserver {
        final List<String> delivered = new ArrayList<>();
        final List<long[]> times = new ArrayList<>();
        final List<Integer> depths = new ArrayList<>();

        @Override
        public void delivered(String transport, int messages, long oldestNanos, long flushedNanos) {
            delivered.add(transport + " " + messages);
            times.add(new long[] {oldestNanos, flushedNanos});
        }

        @Override
        public void queueDepth(int depth) {
            depths.add(depth);
        }
    }

    private static List<ServerMessage> batch(long... arrivals) {
        List<ServerMessage> batch = new ArrayList<>();
        for (long arrived : arrivals) {
            ServerMessageImpl message = new ServerMessageImpl();
            message.arrivedNanos(arrived);
            batch.add(message);
        }
        return batch;
    }

    @Test
    void aRoundIsReportedOncePerTransportWithItsOldestArrival() {
        Recorder recorder = new Recorder();
        DeliveryTally tally = new DeliveryTally();
        long start = System.nanoTime();
        tally.pushed(recorder, "websocket", batch(start - 300, start - 200), 2);
        tally.pushed(recorder, "websocket", batch(start - 500), 1);
        tally.pushed(recorder, "long-polling", batch(0, 0, 0), 3);
        assertEquals(List.of(), recorder.delivered, "nothing before the flush");

        tally.flushing();
        assertEquals(List.of("websocket 3", "long-polling 3"), recorder.delivered);
        assertEquals(start - 500, recorder.times.get(0)[0], "the message that waited longest");
        assertTrue(recorder.times.get(0)[1] >= start, "read at the flush");
        assertEquals(0, recorder.times.get(1)[0], "server-side messages are not timed");
        assertEquals(0, recorder.times.get(1)[1], "and read no clock");

        tally.flushing();
        assertEquals(2, recorder.delivered.size(), "a round that pushed nothing reports nothing");
    }

    @Test
    void oneFrameInTheSamplingReportsItsQueueDepth() {
        Recorder recorder = new Recorder();
        DeliveryTally tally = new DeliveryTally();
        for (int i = 0; i < 2 * ServerObserver.QUEUE_DEPTH_SAMPLING; i++) {
            tally.pushed(recorder, "websocket", batch(0), i);
        }
        tally.flushing();
        assertEquals(List.of(0, ServerObserver.QUEUE_DEPTH_SAMPLING), recorder.depths);
        assertEquals(List.of("websocket " + 2 * ServerObserver.QUEUE_DEPTH_SAMPLING), recorder.delivered);
    }
}
