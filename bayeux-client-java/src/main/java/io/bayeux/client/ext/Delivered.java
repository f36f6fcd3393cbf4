package io.bayeux.client.ext;

import io.bayeux.api.Position;

import java.util.Arrays;

/**
 * What a client delivered of one channel's history: the highest position, and which of the
 * {@value #WINDOW} offsets below it were delivered. A message that comes late (after one with a
 * higher offset, as when two replies overtake each other, or live messages come before a
 * replay) is told apart from one delivered already, and goes through.
 *
 * <p>While messages come in order nothing but the position is kept: the window is made at the
 * first gap (a message that skips offsets), 512 bytes. Every offset up to a position set from
 * outside (a subscription's start, {@link RecoveryExtension#setPosition}) counts as delivered;
 * so does every offset {@value #WINDOW} or more below the highest. Not thread-safe: the
 * extension's monitor guards it.
 */
final class Delivered {
    /** How many offsets below the highest are told apart. */
    static final int WINDOW = 4096;

    private Position position;
    /**
     * Bit {@code offset mod WINDOW}: whether that offset, if it is within the window below the
     * position, was delivered; null while every offset up to the position was.
     */
    private long[] window;

    /** Starts at {@code position}: it and everything before it count as delivered. */
    Delivered(Position position) {
        this.position = position;
    }

    Position position() {
        return position;
    }

    /**
     * A message at {@code at} came: whether it is new (then it counts as delivered from now on),
     * or was delivered already. One of another epoch starts over from it.
     */
    boolean deliver(Position at) {
        if (!at.epoch().equals(position.epoch())) {
            position = at;
            window = null;
            return true;
        }
        long high = position.offset();
        long offset = at.offset();
        if (offset > high) {
            if (offset > high + 1 && window == null) {
                window = new long[WINDOW / 64];
                fill(true);
            }
            if (window != null) {
                // The offsets skipped have not come (yet); this one has.
                mark(high + 1, offset - 1, false);
                set(offset, true);
            }
            position = at;
            return true;
        }
        if (window == null || offset <= high - WINDOW || isSet(offset)) {
            return false;
        }
        set(offset, true);
        return true;
    }

    /** Moves to {@code at} when it is ahead, or in another epoch: every offset up to it counts as delivered. */
    void advance(Position at) {
        if (!at.epoch().equals(position.epoch()) || at.offset() > position.offset()) {
            position = at;
            window = null;
        }
    }

    private void fill(boolean value) {
        Arrays.fill(window, value ? -1L : 0L);
    }

    /** Sets the bits of the offsets {@code from..to} (none when to < from) to {@code value}. */
    private void mark(long from, long to, boolean value) {
        if (to - from + 1 >= WINDOW) {
            fill(value);
            return;
        }
        for (long offset = from; offset <= to; offset++) {
            set(offset, value);
        }
    }

    private void set(long offset, boolean value) {
        int bit = (int) Math.floorMod(offset, (long) WINDOW);
        if (value) {
            window[bit >>> 6] |= 1L << bit;
        } else {
            window[bit >>> 6] &= ~(1L << bit);
        }
    }

    private boolean isSet(long offset) {
        int bit = (int) Math.floorMod(offset, (long) WINDOW);
        return (window[bit >>> 6] & (1L << bit)) != 0;
    }
}
