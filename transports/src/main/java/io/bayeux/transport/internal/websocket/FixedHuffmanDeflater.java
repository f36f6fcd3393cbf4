package io.bayeux.transport.internal.websocket;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A connection's compressor for {@code permessage-deflate} with context takeover (RFC 7692):
 * greedy LZ77 over a small window of the bytes this connection sent last (one hash probe per
 * position: no chains, no lazy matching), written with the fixed Huffman codes of RFC 1951
 * (block type 01) only. On ~150-byte chat messages it sends about as few bytes as zlib's level 1
 * with the same window (the dynamic Huffman tree zlib builds per block does not pay for itself on
 * so few symbols), at a seventh of its CPU.
 *
 * <p>Each {@link #compress} makes one message's payload: a fixed Huffman block per chunk of at
 * most {@code window} input bytes (a stored block instead when that is smaller, as for random
 * bytes), then the end of a sync flush (an empty stored block) without its {@code 00 00 ff ff},
 * which RFC 7692 has the sender leave out and the receiver put back. The payloads inflate with
 * one raw inflater kept for the connection, whose window is at least {@code window}. A match
 * never reaches back further than {@code window} bytes, nor before the first byte this
 * compressor was given; its length is 4 to 258 (with fixed codes a 3-byte match barely beats
 * three literals).
 *
 * <p>State: {@code 2 * window} bytes of history and input and a table of {@code 2^hashBits}
 * entries (a 16-bit tag of the hash and a 16-bit position); the output goes to a buffer the
 * caller lends ({@link #output(byte[])}), grown as needed. Not thread-safe: one per connection,
 * used by its event loop.
 */
final class FixedHuffmanDeflater {
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int MAX_MATCH = 258;
    private static final int MAX_DISTANCE = 32768;
    private static final int PRIME = 0x9E3779B1;

    /** Literal {@code b}: its fixed Huffman code, bit-reversed (deflate sends codes MSB first), and in the top byte its length. */
    private static final int[] LITERAL = new int[257];
    /** Distance symbol {@code 0..29}: its fixed 5-bit code, bit-reversed. */
    private static final int[] DISTANCE_CODE = new int[30];
    /** Match length {@code 3 + i}: length symbol's code (reversed) with its extra bits above it; top byte: total bits. */
    private static final int[] LENGTH = new int[256];

    static {
        for (int sym = 0; sym <= 256; sym++) {
            LITERAL[sym] = fixedCode(sym);
        }
        for (int sym = 0; sym < 30; sym++) {
            DISTANCE_CODE[sym] = Integer.reverse(sym) >>> 27;
        }
        for (int x = 0; x < 256; x++) {
            int sym;
            int extraBits;
            if (x < 8) {
                sym = 257 + x;
                extraBits = 0;
            } else if (x == 255) {
                sym = 285;
                extraBits = 0;
            } else {
                int n = 31 - Integer.numberOfLeadingZeros(x); // 3..7
                extraBits = n - 2;
                sym = 257 + 4 * (n - 1) + ((x >>> extraBits) & 3);
            }
            int code = fixedCode(sym);
            int codeBits = code >>> 24;
            int extra = x & ((1 << extraBits) - 1);
            LENGTH[x] = (codeBits + extraBits) << 24 | extra << codeBits | (code & 0xFFFFFF);
        }
    }

    /** RFC 1951 3.2.6: the fixed code of a literal/length symbol, reversed, its length in the top byte. */
    private static int fixedCode(int sym) {
        int code;
        int bits;
        if (sym < 144) {
            code = 0x30 + sym;
            bits = 8;
        } else if (sym < 256) {
            code = 0x190 + sym - 144;
            bits = 9;
        } else if (sym < 280) {
            code = sym - 256;
            bits = 7;
        } else {
            code = 0xC0 + sym - 280;
            bits = 8;
        }
        return bits << 24 | Integer.reverse(code) >>> (32 - bits);
    }

    private final int window;
    private final int hashShift;
    /** {@code buf[0, fill)}: the last bytes sent (at most {@code window}) then the chunk being compressed. */
    private final byte[] buf;
    /**
     * Per hash: 16 bits of the hash that came last (a tag, above) and the low 16 bits of its
     * stream position (a stale one only costs a miss: matches are verified).
     */
    private final int[] table;
    /** Stream position (bytes given to this compressor since the start, modulo 2^32) of {@code buf[0]}. */
    private int base;
    private int fill;

    /** The buffer lent by the caller ({@link #output(byte[])}). */
    private byte[] out;
    private int outPos;
    /** Bits not yet in {@code out} (fewer than 8 between symbols), LSB first. */
    private long bits;
    private int bitCount;

    /**
     * @param window   history kept between messages, a power of two from 256 to 32768
     * @param hashBits log2 of the hash table's entries (8 to 16)
     */
    FixedHuffmanDeflater(int window, int hashBits) {
        if (window < 256 || window > MAX_DISTANCE || Integer.bitCount(window) != 1) {
            throw new IllegalArgumentException("window must be a power of two in [256, 32768]: " + window);
        }
        if (hashBits < 8 || hashBits > 16) {
            throw new IllegalArgumentException("hashBits must be in [8, 16]: " + hashBits);
        }
        this.window = window;
        this.hashShift = 32 - hashBits;
        this.buf = new byte[2 * window];
        this.table = new int[1 << hashBits];
    }

    /**
     * Compresses one message: afterwards {@link #output()}{@code [0, returned)} is its payload.
     *
     * @return the payload's length (never 0: an empty message is the single byte {@code 00})
     */
    int compress(byte[] src, int off, int len) {
        ensureOut(32);
        outPos = 0;
        bits = 0;
        bitCount = 0;
        int done = 0;
        while (done < len) {
            int n = Math.min(window, len - done);
            append(src, off + done, n);
            block(fill - n, fill);
            done += n;
        }
        // Sync flush: an empty stored block (BFINAL 0, BTYPE 00), aligned, whose 00 00 ff ff is left out.
        putBits(0, 3);
        align();
        return outPos;
    }

    /** Lends the buffer the next {@link #compress} writes to (it may replace it with a larger one). */
    void output(byte[] buffer) {
        out = buffer;
    }

    /** The buffer {@link #compress} wrote the payload into: the one lent, or a larger copy of it. */
    byte[] output() {
        return out;
    }

    /** Copies {@code n <= window} bytes after the history, first dropping all but its last {@code window} bytes if needed. */
    private void append(byte[] src, int off, int n) {
        if (fill + n > buf.length) {
            int drop = fill - window;
            System.arraycopy(buf, drop, buf, 0, window);
            base += drop;
            fill = window;
        }
        System.arraycopy(src, off, buf, fill, n);
        fill += n;
    }

    /** Encodes {@code buf[start, end)} as one fixed Huffman block, or a stored block if that is shorter. */
    private void block(int start, int end) {
        ensureOut(outPos + (end - start) + ((end - start) >>> 3) + 32);
        final int savedPos = outPos;
        final long savedBits = bits;
        final int savedCount = bitCount;
        final byte[] buf = this.buf;
        final int[] table = this.table;
        final int hashShift = this.hashShift;
        // The tag: the 16 bits of the hash below those of the index.
        final int tagShift = 32 - hashShift;
        final int window = this.window;
        final int base = this.base;
        final int hashEnd = end - 3; // positions whose int can be read
        // The bit writer, in locals: after each symbol, whole bytes are stored and bc < 8 bits wait in bb.
        final byte[] o = out;
        int op = outPos;
        long bb = bits | 2L << bitCount; // BFINAL 0, BTYPE 01
        int bc = bitCount + 3;
        int i = start;
        while (i < hashEnd) {
            int v = (int) INT.get(buf, i);
            int hash = v * PRIME;
            int h = hash >>> hashShift;
            int pos = base + i;
            int tag = (hash << tagShift) & 0xFFFF0000;
            int entry = table[h];
            int distance = ((pos - entry - 1) & 0xFFFF) + 1; // 1..65536
            table[h] = tag | (pos & 0xFFFF);
            // The entry's tag must agree before the window is read: on a busy server the window
            // is out of the cache, and reading it at every position costs most of the time.
            if ((entry & 0xFFFF0000) != tag || distance > Math.min(window, i) || (int) INT.get(buf, i - distance) != v) {
                int code = LITERAL[buf[i] & 0xFF];
                bb |= (long) (code & 0xFFFFFF) << bc;
                bc += code >>> 24;
                i++;
            } else {
                int length = matchLength(buf, i - distance, i, Math.min(end - i, MAX_MATCH));
                int code = LENGTH[length - 3];
                bb |= (long) (code & 0xFFFFFF) << bc;
                bc += code >>> 24;
                int d = distance - 1;
                if (d < 4) {
                    bb |= (long) DISTANCE_CODE[d] << bc;
                    bc += 5;
                } else {
                    int k = 31 - Integer.numberOfLeadingZeros(d); // 2..14
                    int extraBits = k - 1;
                    int sym = 2 * k + ((d >>> extraBits) & 1);
                    bb |= (long) (DISTANCE_CODE[sym] | (d & ((1 << extraBits) - 1)) << 5) << bc;
                    bc += 5 + extraBits;
                }
                // Let the match's last two positions be found again (cheap; LZ4 does likewise).
                int last = i + length;
                if (last <= hashEnd) {
                    int before = (int) INT.get(buf, last - 2) * PRIME;
                    table[before >>> hashShift] = (before << tagShift) & 0xFFFF0000 | ((base + last - 2) & 0xFFFF);
                    int previous = (int) INT.get(buf, last - 1) * PRIME;
                    table[previous >>> hashShift] = (previous << tagShift) & 0xFFFF0000 | ((base + last - 1) & 0xFFFF);
                }
                i = last;
            }
            LONG.set(o, op, bb);
            int bytes = bc >>> 3;
            op += bytes;
            bb >>>= bytes << 3;
            bc &= 7;
        }
        for (; i <= end; i++) {
            int code = LITERAL[i < end ? buf[i] & 0xFF : 256]; // then the end of block
            bb |= (long) (code & 0xFFFFFF) << bc;
            bc += code >>> 24;
            LONG.set(o, op, bb);
            int bytes = bc >>> 3;
            op += bytes;
            bb >>>= bytes << 3;
            bc &= 7;
        }
        long fixedBits = (long) (op - savedPos) * 8 + bc - savedCount;
        long storedBits = 3 + ((-(savedCount + 3)) & 7) + 32 + 8L * (end - start);
        if (fixedBits <= storedBits) {
            outPos = op;
            bits = bb;
            bitCount = bc;
            return;
        }
        outPos = savedPos;
        bits = savedBits;
        bitCount = savedCount;
        putBits(0, 3); // BFINAL 0, BTYPE 00
        align();
        int n = end - start;
        out[outPos++] = (byte) n;
        out[outPos++] = (byte) (n >>> 8);
        out[outPos++] = (byte) ~n;
        out[outPos++] = (byte) (~n >>> 8);
        System.arraycopy(buf, start, out, outPos, n);
        outPos += n;
    }

    /** How many bytes from {@code cur} equal those from {@code ref} ({@code ref < cur}, 4 known equal), at most {@code max}. */
    private static int matchLength(byte[] buf, int ref, int cur, int max) {
        int n = 4;
        while (n + 8 <= max) {
            long x = (long) LONG.get(buf, ref + n) ^ (long) LONG.get(buf, cur + n);
            if (x != 0) {
                return n + (Long.numberOfTrailingZeros(x) >>> 3);
            }
            n += 8;
        }
        while (n < max && buf[ref + n] == buf[cur + n]) {
            n++;
        }
        return n;
    }

    /** Appends the {@code n <= 8} low bits of {@code value} (LSB first). */
    private void putBits(int value, int n) {
        bits |= (long) value << bitCount;
        bitCount += n;
        if (bitCount >= 8) {
            out[outPos++] = (byte) bits;
            bits >>>= 8;
            bitCount -= 8;
        }
    }

    /** Pads with zero bits to a byte boundary. */
    private void align() {
        if (bitCount > 0) {
            out[outPos++] = (byte) bits;
        }
        bits = 0;
        bitCount = 0;
    }

    private void ensureOut(int capacity) {
        if (out == null) {
            out = new byte[Math.max(capacity, 256)];
        } else if (capacity > out.length) {
            out = Arrays.copyOf(out, Math.max(capacity, out.length * 2));
        }
    }
}
