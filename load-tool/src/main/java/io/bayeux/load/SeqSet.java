package io.bayeux.load;

import java.util.BitSet;

/**
 * The distinct sequence numbers received from one stream (one room, for one receiver), in a
 * window that slides forward as the gaps fill: memory stays small while messages arrive
 * roughly in order, however long the run. Not thread-safe: the caller guards it.
 */
final class SeqSet {
    private static final int COMPACT_AT = 4096;

    /** Bit {@code i} stands for sequence number {@code offset + i}; every number below offset was seen. */
    private long offset;
    private BitSet bits = new BitSet();
    private long distinct;

    /** Records {@code seq}; false when it was seen (or skipped) before. */
    boolean add(long seq) {
        if (!mark(seq)) {
            return false;
        }
        distinct++;
        return true;
    }

    /** Marks {@code seq} as not expected (not counted), so that the window can slide past it. */
    void skip(long seq) {
        mark(seq);
    }

    private boolean mark(long seq) {
        if (seq < offset) {
            return false;
        }
        long index = seq - offset;
        if (index > Integer.MAX_VALUE - 64) {
            throw new IllegalStateException("Sequence " + seq + " too far ahead of " + offset);
        }
        int i = (int) index;
        if (bits.get(i)) {
            return false;
        }
        bits.set(i);
        if (i == 0 || bits.length() > COMPACT_AT) {
            int firstClear = bits.nextClearBit(0);
            if (firstClear == bits.length()) {
                // Every number of the window was seen (the usual case: in order): the window empties, kept for reuse.
                bits.clear();
                offset += firstClear;
            } else if (firstClear >= COMPACT_AT) {
                bits = bits.get(firstClear, bits.length());
                offset += firstClear;
            }
        }
        return true;
    }

    /** The smallest number below {@code end} neither added nor skipped, or -1 when there is none. */
    long firstMissing(long end) {
        long first = offset + bits.nextClearBit(0);
        return first < end ? first : -1;
    }

    /** How many distinct numbers were added (skipped ones not counted). */
    long distinct() {
        return distinct;
    }
}
