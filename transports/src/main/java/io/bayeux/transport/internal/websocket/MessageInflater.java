package io.bayeux.transport.internal.websocket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

import java.util.Arrays;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Decompresses whole {@code permessage-deflate} messages sent without context takeover (the
 * server always asks for {@code client_no_context_takeover}): the four bytes the sender left
 * out are put back and the message inflated in chunks into a buffer that never grows past the
 * largest message allowed, so a small message that would inflate to gigabytes (a zip bomb)
 * costs at most that much before it is refused. One per event loop, reset after each message:
 * a connection holds no zlib state.
 *
 * <p>Loop-confined.
 */
final class MessageInflater {
    private static final byte[] TAIL = {0, 0, (byte) 0xFF, (byte) 0xFF};
    /** The first output chunk for a message of n compressed bytes: a guess at its size, grown by doubling. */
    private static final int FIRST_CHUNK_RATIO = 4;

    /** Made at the first message: a window of 32 KiB takes any window the client compressed with. */
    private Inflater inflater;

    /** What a message too large, or not deflate, is told. */
    static final class TooLargeException extends Exception {
        TooLargeException(int max) {
            super("Message inflates past the maximum size of " + max + " bytes", null, false, false);
        }
    }

    /**
     * The bytes {@code compressed} (a whole message's payload) inflates to, at most {@code max}.
     *
     * @throws TooLargeException   when they would be more than {@code max}
     * @throws DataFormatException when {@code compressed} is not raw deflate data (or refers to
     *                             data before it: its sender kept context)
     */
    byte[] inflate(ByteBuf compressed, int max) throws TooLargeException, DataFormatException {
        return inflate(compressed, max, null);
    }

    /**
     * Like {@link #inflate(ByteBuf, int)}, for a sender that keeps context between messages:
     * {@code window} is the end of what its earlier messages inflated to (up to 32 KiB), which
     * this one may refer to; null for none.
     */
    byte[] inflate(ByteBuf compressed, int max, byte[] window) throws TooLargeException, DataFormatException {
        Inflater in = inflater;
        if (in == null) {
            in = new Inflater(true);
            inflater = in;
        }
        try {
            if (window != null) {
                // A raw inflater takes a dictionary before its first input: the sender's window.
                in.setDictionary(window);
            }
            int size = compressed.readableBytes();
            byte[] input = Arrays.copyOf(ByteBufUtil.getBytes(compressed), size + TAIL.length);
            System.arraycopy(TAIL, 0, input, size, TAIL.length);
            in.setInput(input);
            byte[] out = new byte[(int) Math.min((long) max + 1, Math.max(256L, (long) size * FIRST_CHUNK_RATIO))];
            int length = 0;
            while (true) {
                length += in.inflate(out, length, out.length - length);
                if (length > max) {
                    throw new TooLargeException(max);
                }
                if (length < out.length) {
                    if (in.needsInput() || in.finished()) {
                        return Arrays.copyOf(out, length);
                    }
                    if (in.needsDictionary()) {
                        throw new DataFormatException("A preset dictionary is not permessage-deflate");
                    }
                    continue;
                }
                out = Arrays.copyOf(out, (int) Math.min((long) max + 1, out.length * 2L));
            }
        } finally {
            in.reset();
        }
    }

}
