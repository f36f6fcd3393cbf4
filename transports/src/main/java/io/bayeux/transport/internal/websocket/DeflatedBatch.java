package io.bayeux.transport.internal.websocket;

import io.bayeux.transport.internal.SharedFrames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.Arrays;
import java.util.zip.Deflater;

/**
 * A permessage-deflate frame of several messages, put together from pieces deflated once per
 * message instead of deflating the frame for its connection. A deflate stream may be cut
 * between blocks, and a piece that ends with its sync flush whole ends on a byte boundary and
 * refers back to nothing before it (each was deflated alone), so the pieces of a JSON array —
 * its brackets and commas as stored blocks, each message as {@link MessageDeflater#deflateElement}
 * made it — simply follow one another. A broadcast is deflated once whatever the frames and
 * subscribers it goes to; a frame costs a copy of its pieces.
 *
 * <p>The stream ends with a bracket deflated with its sync flush, whose last four bytes are left
 * out as RFC 7692 (7.2.1) asks: the receiver puts them back.
 *
 * <p>Stateless; thread-safe.
 */
final class DeflatedBatch {
    /** The most a stored block holds. */
    private static final int MAX_STORED = 0xFFFF;
    /** The bytes a stored block adds to what it holds: its header byte, LEN and NLEN. */
    private static final int STORED_OVERHEAD = 5;
    private static final byte[] OPEN = stored((byte) '[');
    private static final byte[] COMMA = stored((byte) ',');
    private static final byte[] CLOSE = closingBracket();

    private DeflatedBatch() {
    }

    /** The length of {@code length} bytes as stored blocks. */
    static int storedLength(int length) {
        return length + STORED_OVERHEAD * Math.max(1, (length + MAX_STORED - 1) / MAX_STORED);
    }

    /**
     * The payload length of the frame of the messages encoded as {@code arrays} (each a JSON
     * array of one) whose pieces are {@code pieces}: a piece that is its array goes stored.
     */
    static int payloadLength(byte[][] arrays, byte[][] pieces) {
        int length = OPEN.length + COMMA.length * (arrays.length - 1) + CLOSE.length;
        for (int i = 0; i < arrays.length; i++) {
            length += pieces[i] == arrays[i] ? storedLength(arrays[i].length - 2) : pieces[i].length;
        }
        return length;
    }

    /** A whole text frame with RSV1 set whose payload, {@code length} bytes, is made of {@code pieces}, in a new direct buffer. */
    static ByteBuf frame(ByteBufAllocator alloc, byte[][] arrays, byte[][] pieces, int length) {
        ByteBuf out = SharedFrames.deflatedTextFrameHeader(alloc, length);
        out.writeBytes(OPEN);
        for (int i = 0; i < arrays.length; i++) {
            if (i > 0) {
                out.writeBytes(COMMA);
            }
            if (pieces[i] == arrays[i]) {
                writeStored(out, arrays[i], 1, arrays[i].length - 2);
            } else {
                out.writeBytes(pieces[i]);
            }
        }
        return out.writeBytes(CLOSE);
    }

    private static void writeStored(ByteBuf out, byte[] bytes, int offset, int length) {
        do {
            int block = Math.min(length, MAX_STORED);
            // BFINAL 0 and BTYPE 00 in the low bits, the rest padding to the byte boundary.
            out.writeByte(0).writeShortLE(block).writeShortLE(~block & 0xFFFF).writeBytes(bytes, offset, block);
            offset += block;
            length -= block;
        } while (length > 0);
    }

    private static byte[] stored(byte b) {
        return new byte[] {0, 1, 0, (byte) 0xFE, (byte) 0xFF, b};
    }

    /** {@code ]} deflated with a sync flush, its last four bytes ({@code 00 00 ff ff}) left out. */
    private static byte[] closingBracket() {
        Deflater deflater = new Deflater(Deflater.BEST_SPEED, true);
        try {
            deflater.setInput(new byte[] {']'});
            byte[] out = new byte[64];
            int length = deflater.deflate(out, 0, out.length, Deflater.SYNC_FLUSH);
            return Arrays.copyOf(out, length - 4);
        } finally {
            deflater.end();
        }
    }
}
