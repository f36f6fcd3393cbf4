package io.bayeux.transport.internal.websocket;

import io.bayeux.transport.WebSocketCompression;
import com.jcraft.jzlib.GZIPException;
import com.jcraft.jzlib.JZlib;

import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.UnaryOperator;
import java.util.zip.Deflater;

/**
 * Compresses whole WebSocket messages for {@code permessage-deflate} without context takeover
 * (RFC 7692, 7.2.1): each message alone, ending with a sync flush whose empty block's four
 * bytes ({@code 00 00 ff ff}) are left out. One per event loop: the zlib state is the loop's,
 * reset after each message, so a connection holds none. With the default window and memory
 * level it is the JDK's zlib, made once and reused; with others JZlib, made per message.
 *
 * <p>Loop-confined; the counter is the server's, thread-safe.
 */
final class MessageDeflater {
    private static final byte[] TAIL = {0, 0, (byte) 0xFF, (byte) 0xFF};

    private final WebSocketCompression settings;
    /** Messages compressed by the server's deflaters. */
    private final LongAdder compressions;
    /** The JDK's deflater, made at the first message; null with JZlib. */
    private Deflater jdk;
    /** Where a message is compressed to before its exact copy is made; grows to the largest output. */
    private byte[] scratch = new byte[1024];
    /** {@link #deflate} and {@link #deflateElement} as functions, made once: not a new object per frame. */
    final UnaryOperator<byte[]> whole = this::deflate;
    final UnaryOperator<byte[]> element = this::deflateElement;

    MessageDeflater(WebSocketCompression settings, LongAdder compressions) {
        this.settings = settings;
        this.compressions = compressions;
    }

    /**
     * The compressed payload of a message whose bytes are {@code message}, or {@code message}
     * itself when compressing does not make it smaller.
     */
    byte[] deflate(byte[] message) {
        int length = deflate(message, 0, message.length);
        if (length >= TAIL.length && Arrays.equals(scratch, length - TAIL.length, length, TAIL, 0, TAIL.length)) {
            length -= TAIL.length;
        }
        return length < message.length ? Arrays.copyOf(scratch, length) : message;
    }

    /**
     * What lies between the brackets of {@code array} (a message as a JSON array of one) as a
     * piece of a larger deflate stream ({@link DeflatedBatch}): deflated alone, ending with its
     * sync flush whole, so it ends on a byte boundary and refers to nothing before it. Returns
     * {@code array} itself when that element is under the threshold or would not shrink: it goes
     * in stored blocks, uncompressed.
     */
    byte[] deflateElement(byte[] array) {
        int element = array.length - 2;
        if (element < settings.minBytes()) {
            return array;
        }
        int length = deflate(array, 1, element);
        return length < DeflatedBatch.storedLength(element) ? Arrays.copyOf(scratch, length) : array;
    }

    /** Deflates {@code length} bytes of {@code input} from {@code offset} into {@link #scratch}, ending with a sync flush; its length. */
    private int deflate(byte[] input, int offset, int length) {
        compressions.increment();
        return settings.usesJdkZlib() ? jdkDeflate(input, offset, length) : jzlibDeflate(input, offset, length);
    }

    private int jdkDeflate(byte[] input, int offset, int inputLength) {
        Deflater deflater = jdk;
        if (deflater == null) {
            deflater = new Deflater(settings.level(), true);
            jdk = deflater;
        }
        try {
            deflater.setInput(input, offset, inputLength);
            int length = 0;
            while (true) {
                length += deflater.deflate(scratch, length, scratch.length - length, Deflater.SYNC_FLUSH);
                // A full output buffer may hide more output (Deflater's contract for SYNC_FLUSH).
                if (length < scratch.length) {
                    return length;
                }
                scratch = Arrays.copyOf(scratch, scratch.length * 2);
            }
        } finally {
            deflater.reset();
        }
    }

    private int jzlibDeflate(byte[] input, int offset, int inputLength) {
        com.jcraft.jzlib.Deflater deflater;
        try {
            deflater = new com.jcraft.jzlib.Deflater(settings.level(), settings.windowBits(), settings.memLevel(), JZlib.W_NONE);
        } catch (GZIPException x) {
            throw new IllegalStateException("JZlib refused " + settings, x);
        }
        try {
            deflater.setInput(input, offset, inputLength, false);
            int length = 0;
            while (true) {
                deflater.setOutput(scratch, length, scratch.length - length);
                int status = deflater.deflate(JZlib.Z_SYNC_FLUSH);
                if (status != JZlib.Z_OK && status != JZlib.Z_BUF_ERROR) {
                    throw new IllegalStateException("JZlib failed: " + status + " " + deflater.msg);
                }
                length = deflater.next_out_index;
                if (deflater.avail_out > 0) {
                    return length;
                }
                scratch = Arrays.copyOf(scratch, scratch.length * 2);
            }
        } finally {
            deflater.end();
        }
    }


    @Override
    public String toString() {
        return "MessageDeflater[" + settings + "]";
    }
}
