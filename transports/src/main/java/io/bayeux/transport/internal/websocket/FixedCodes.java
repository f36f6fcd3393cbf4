package io.bayeux.transport.internal.websocket;

/**
 * The fixed Huffman codes of deflate (RFC 1951 3.2.6, block type 01), as tables ready to be
 * or-ed into a bit buffer: each code bit-reversed (deflate sends Huffman codes from their first
 * bit), its length in bits in the top byte.
 */
final class FixedCodes {
    /** Literal byte {@code b} (and 256, the end of a block): its code, length in the top byte. */
    static final int[] LITERAL = new int[257];
    /** Match length {@code 3 + i}: its length symbol's code with the extra bits above it; top byte: their bits in all. */
    static final int[] LENGTH = new int[256];
    /** Distance symbol {@code 0..29}: its 5-bit code. */
    private static final int[] DISTANCE = new int[30];

    static {
        for (int sym = 0; sym <= 256; sym++) {
            LITERAL[sym] = literalOrLength(sym);
        }
        for (int sym = 0; sym < 30; sym++) {
            DISTANCE[sym] = Integer.reverse(sym) >>> 27;
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
            int code = literalOrLength(sym);
            int codeBits = code >>> 24;
            int extra = x & ((1 << extraBits) - 1);
            LENGTH[x] = (codeBits + extraBits) << 24 | extra << codeBits | (code & 0xFFFFFF);
        }
    }

    private FixedCodes() {
    }

    /** The code of a literal/length symbol, reversed, its length in the top byte. */
    private static int literalOrLength(int sym) {
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

    /**
     * Distance {@code 1..32768}: its symbol's code with the extra bits above it, in the low 32
     * bits of the result, and their number of bits in all above those.
     */
    static long distance(int distance) {
        int d = distance - 1;
        if (d < 4) {
            return 5L << 32 | DISTANCE[d];
        }
        int k = 31 - Integer.numberOfLeadingZeros(d); // 2..14
        int extraBits = k - 1;
        int sym = 2 * k + ((d >>> extraBits) & 1);
        return (long) (5 + extraBits) << 32 | DISTANCE[sym] | (d & ((1 << extraBits) - 1)) << 5;
    }
}
