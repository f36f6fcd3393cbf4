package io.bayeux.transport.internal.websocket;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Writes one permessage-deflate payload at a time: a fixed Huffman block (RFC 1951 3.2.6) of
 * literals and matches, or stored blocks instead, then the end of a sync flush without its
 * {@code 00 00 ff ff} (RFC 7692 7.2.1). Its buffer grows to the largest payload and is kept.
 *
 * <p>Not thread-safe: one per event loop, shared by its connections' contexts.
 */
final class BitWriter {
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private byte[] out = new byte[1024];
    /** {@code out[0, op)} is written; {@code bc < 8} bits wait in {@code bb}, the first the lowest. */
    private int op;
    private long bb;
    private int bc;

    /** Starts a payload of at most {@code capacity} bytes (8 more are written past it): its fixed Huffman block's header. */
    void start(int capacity) {
        if (out.length < capacity + 8) {
            out = new byte[Math.max(capacity + 8, out.length * 2)];
        }
        op = 0;
        bb = 2; // BFINAL 0, BTYPE 01
        bc = 3;
    }

    /** The bits written so far. */
    long bits() {
        return 8L * op + bc;
    }

    void literals(byte[] array, int from, int to) {
        for (int i = from; i < to; i++) {
            literal(array[i] & 0xFF);
        }
    }

    /** A literal byte, or 256: the end of the block. */
    void literal(int symbol) {
        int code = FixedCodes.LITERAL[symbol];
        bb |= (long) (code & 0xFFFFFF) << bc;
        bc += code >>> 24;
        flush();
    }

    void match(int length, int distance) {
        int code = FixedCodes.LENGTH[length - 3];
        bb |= (long) (code & 0xFFFFFF) << bc;
        bc += code >>> 24;
        long d = FixedCodes.distance(distance);
        bb |= (d & 0xFFFFFFFFL) << bc;
        bc += (int) (d >>> 32);
        flush();
    }

    /** Appends bits {@code [start, start + length)} of {@code words} (a {@link BitString}'s). */
    void bits(long[] words, int start, int length) {
        while (length > 0) {
            // At most 56 bits at a time: with the fewer than 8 waiting they fit in bb.
            int n = Math.min(length, 56);
            int word = start >>> 6;
            int shift = start & 63;
            long w = words[word] >>> shift;
            if (shift + n > 64) {
                w |= words[word + 1] << (64 - shift);
            }
            bb |= (w & ((1L << n) - 1)) << bc;
            bc += n;
            flush();
            start += n;
            length -= n;
        }
    }

    /** Stores the whole bytes of {@code bb}. */
    private void flush() {
        LONG.set(out, op, bb);
        int bytes = bc >>> 3;
        op += bytes;
        bb >>>= bytes << 3;
        bc &= 7;
    }

    /**
     * Writes the payload again as stored blocks of the frame's {@code plain} bytes, put together
     * in {@code input} from {@code arrays} (each "[m]" giving "[" or "," then "m", one "]" closing
     * the whole): it did not compress (the fixed codes spend 9 bits on some bytes).
     */
    void stored(byte[] input, byte[][] arrays, int plain) {
        int at = 0;
        for (int i = 0; i < arrays.length; i++) {
            input[at++] = i == 0 ? (byte) '[' : (byte) ',';
            System.arraycopy(arrays[i], 1, input, at, arrays[i].length - 2);
            at += arrays[i].length - 2;
        }
        input[at] = ']';
        op = 0;
        bb = 0;
        bc = 0;
        for (int done = 0; done < plain; ) {
            int n = Math.min(65535, plain - done);
            out[op++] = 0; // BFINAL 0, BTYPE 00, aligned
            out[op++] = (byte) n;
            out[op++] = (byte) (n >>> 8);
            out[op++] = (byte) ~n;
            out[op++] = (byte) (~n >>> 8);
            System.arraycopy(input, done, out, op, n);
            op += n;
            done += n;
        }
    }

    /** Ends the payload with a sync flush's empty stored block, aligned, its {@code 00 00 ff ff} left out; the payload's length. */
    int finish() {
        bc += 3; // BFINAL 0, BTYPE 00
        flush();
        if (bc > 0) {
            out[op++] = (byte) bb;
            bb = 0;
            bc = 0;
        }
        return op;
    }

    /** The buffer the payload is in, {@code [0, finish())}. */
    byte[] output() {
        return out;
    }
}
