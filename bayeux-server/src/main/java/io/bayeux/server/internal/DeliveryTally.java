package io.bayeux.server.internal;

import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.spi.ServerObserver;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * What one {@link LoopFlusher} round pushed, by transport, told to the server's
 * {@link ServerObserver} once right before the round's flush: one clock read and one report per
 * transport for the whole round instead of one per frame. Also picks the frames whose queue
 * depth is reported, one in {@link ServerObserver#QUEUE_DEPTH_SAMPLING}.
 *
 * <p>Confined to the loop of its flusher; allocates only when a round meets more transports
 * than any round before.
 */
final class DeliveryTally {
    /** The observer the latest frame was pushed under, or null when the round pushed nothing observed. */
    private ServerObserver observer;
    private String[] transports = new String[2];
    private int[] messages = new int[2];
    /** Per transport, the earliest arrival among the messages pushed, 0 when none was timed. */
    private long[] oldest = new long[2];
    private int size;
    /** Frames pushed under an observer so far, for the depth sampling; wraps harmlessly. */
    private int frames;

    /** When the first of {@code batch} (the one that waited longest) arrived from a client ({@link System#nanoTime()}), or 0 when not timed. */
    static long arrivedNanos(List<ServerMessage> batch) {
        // The queue is in arrival order: the first waited longest.
        return batch.get(0) instanceof ServerMessageImpl impl ? impl.arrivedNanos() : 0;
    }

    /** Tells {@code observer} that {@code batch} is flushed now over {@code transport}: for a frame outside rounds. */
    static void report(ServerObserver observer, String transport, List<ServerMessage> batch) {
        long arrived = arrivedNanos(batch);
        observer.delivered(transport, batch.size(), arrived, arrived == 0 ? 0 : System.nanoTime());
    }

    /**
     * A frame of {@code batch} was pushed under {@code observer}, taken from a queue of
     * {@code depth}; its depth is reported now if it is the sampled frame.
     */
    void pushed(ServerObserver observer, String transport, List<ServerMessage> batch, int depth) {
        this.observer = observer;
        if (frames++ % ServerObserver.QUEUE_DEPTH_SAMPLING == 0) {
            observer.queueDepth(depth);
        }
        long arrived = arrivedNanos(batch);
        int i = indexOf(transport);
        messages[i] += batch.size();
        if (arrived != 0 && (oldest[i] == 0 || arrived - oldest[i] < 0)) {
            oldest[i] = arrived;
        }
    }

    private int indexOf(String transport) {
        for (int i = 0; i < size; i++) {
            // Transport names are constants: identity first, then equality.
            if (transports[i] == transport || Objects.equals(transports[i], transport)) {
                return i;
            }
        }
        if (size == transports.length) {
            transports = Arrays.copyOf(transports, size * 2);
            messages = Arrays.copyOf(messages, size * 2);
            oldest = Arrays.copyOf(oldest, size * 2);
        }
        transports[size] = transport;
        return size++;
    }

    /** Right before the round's flush: reports what it pushed, and starts over. */
    void flushing() {
        if (observer == null) {
            return;
        }
        long now = 0;
        for (int i = 0; i < size; i++) {
            if (oldest[i] != 0 && now == 0) {
                now = System.nanoTime();
            }
            observer.delivered(transports[i], messages[i], oldest[i], oldest[i] == 0 ? 0 : now);
            transports[i] = null;
            messages[i] = 0;
            oldest[i] = 0;
        }
        size = 0;
        observer = null;
    }

    @Override
    public String toString() {
        return "DeliveryTally[" + size + " transports]";
    }
}
