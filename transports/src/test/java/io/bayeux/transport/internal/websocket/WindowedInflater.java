package io.bayeux.transport.internal.websocket;

import java.util.Arrays;

/**
 * A test's raw inflater for what {@link ContextDeflater} writes (fixed Huffman and stored blocks,
 * RFC 1951) that keeps only the last {@code window} bytes of its stream and refuses a match that
 * reaches further back, as a client that asked for {@code server_max_window_bits} would. Each
 * call inflates one message's payload, its {@code 00 00 ff ff} put back.
 */
final class WindowedInflater {
    private final int window;
    /** Everything inflated so far (a test's streams are small); what is older than the window is never read. */
    private byte[] history = new byte[1024];
    private int size;
    private byte[] in;
    private int bitPos;

    WindowedInflater(int window) {
        this.window = window;
    }

    byte[] inflate(byte[] payload) {
        in = new byte[payload.length + 4];
        System.arraycopy(payload, 0, in, 0, payload.length);
        in[payload.length + 2] = (byte) 0xFF;
        in[payload.length + 3] = (byte) 0xFF;
        bitPos = 0;
        int start = size;
        while (true) {
            int last = bits(1);
            int type = bits(2);
            if (last != 0) {
                throw new IllegalStateException("BFINAL set");
            }
            if (type == 0) {
                bitPos = (bitPos + 7) & ~7;
                int length = bits(16);
                int check = bits(16);
                if ((length ^ 0xFFFF) != check) {
                    throw new IllegalStateException("bad stored length");
                }
                for (int i = 0; i < length; i++) {
                    write(bits(8));
                }
                if (length == 0 && bitPos == 8 * in.length) {
                    break; // the sync flush's empty block: the message's end
                }
            } else if (type == 1) {
                fixedBlock();
            } else {
                throw new IllegalStateException("block type " + type);
            }
        }
        return Arrays.copyOfRange(history, start, size);
    }

    private void fixedBlock() {
        while (true) {
            int symbol = literalOrLength();
            if (symbol < 256) {
                write(symbol);
            } else if (symbol == 256) {
                return;
            } else {
                int length = length(symbol - 257);
                int distanceSymbol = reversed(5);
                int distance = distance(distanceSymbol);
                if (distance > window) {
                    throw new IllegalStateException("distance " + distance + " beyond the window of " + window);
                }
                if (distance > size) {
                    throw new IllegalStateException("distance " + distance + " before the stream's start");
                }
                for (int i = 0; i < length; i++) {
                    write(history[size - distance]);
                }
            }
        }
    }

    private void write(int b) {
        if (size == history.length) {
            history = Arrays.copyOf(history, size * 2);
        }
        history[size++] = (byte) b;
    }

    private int literalOrLength() {
        int code = reversed(7);
        if (code <= 0x17) {
            return 256 + code;
        }
        code = code << 1 | bits(1);
        if (code >= 0x30 && code <= 0xBF) {
            return code - 0x30;
        }
        if (code >= 0xC0 && code <= 0xC7) {
            return 280 + code - 0xC0;
        }
        code = code << 1 | bits(1);
        return 144 + code - 0x190;
    }

    private int length(int index) {
        if (index < 8) {
            return 3 + index;
        }
        if (index == 28) {
            return 258;
        }
        int extra = (index - 4) / 4;
        int base = ((4 + (index - 8) % 4) << extra) + 3;
        return base + bits(extra);
    }

    private int distance(int symbol) {
        if (symbol < 4) {
            return symbol + 1;
        }
        int extra = symbol / 2 - 1;
        return ((2 + symbol % 2) << extra) + 1 + bits(extra);
    }

    /** {@code n} bits of a Huffman code, its first bit the highest. */
    private int reversed(int n) {
        int code = 0;
        for (int i = 0; i < n; i++) {
            code = code << 1 | bits(1);
        }
        return code;
    }

    /** {@code n} bits, the first the lowest. */
    private int bits(int n) {
        int value = 0;
        for (int i = 0; i < n; i++) {
            if (bitPos >= 8 * in.length) {
                throw new IllegalStateException("the payload ends inside a block");
            }
            value |= ((in[bitPos >>> 3] >>> (bitPos & 7)) & 1) << i;
            bitPos++;
        }
        return value;
    }
}
