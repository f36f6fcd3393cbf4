package io.bayeux.transport.internal.websocket;

import com.jcraft.jzlib.GZIPException;
import com.jcraft.jzlib.JZlib;
import io.bayeux.transport.internal.SharedFrames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.Arrays;

/**
 * The compression context of one connection that negotiated {@code permessage-deflate} with
 * context takeover: every message it sends compressed goes through one deflater (JZlib, of the
 * context's window and memory level; the JDK's zlib, native and faster, for a window of 15 and a
 * memory level of 8), which keeps its window from one message to the next, so
 * that a message refers back to those before it. Each message ends with a sync flush whose
 * empty block's four bytes ({@code 00 00 ff ff}) are left out (RFC 7692, 7.2.1).
 *
 * <p>The deflater is made when a frame needs it and dropped by the loop's {@link LoopContexts}
 * once the connection has sent nothing compressed for the release time: between messages, a
 * fresh deflater's output refers to nothing before it, which the client's inflater, however much
 * history it keeps, inflates the same. An idle connection holds this object and no zlib state.
 *
 * <p>Loop-confined.
 */
final class ContextDeflater {
    private static final byte[] TAIL = {0, 0, (byte) 0xFF, (byte) 0xFF};
    private static final byte[] COMMA = {','};
    private static final byte[] CLOSE = {']'};

    private final LoopContexts loop;
    /** The JZlib deflater while the connection is busy; null once released, and with the JDK's. */
    private com.jcraft.jzlib.Deflater deflater;
    /** The JDK's deflater while the connection is busy, for zlib's default window and memory level; null once released. */
    private java.util.zip.Deflater jdk;
    /** Whether the loop's release round has this context in its list. */
    private boolean listed;
    /** When the last message was compressed, for the release. */
    private long lastUsed;
    /** Output length so far in the loop's scratch buffer, while a frame is being deflated. */
    private int length;

    ContextDeflater(LoopContexts loop) {
        this.loop = loop;
    }

    /**
     * A whole text frame with RSV1 set carrying the messages encoded as {@code arrays} (each a
     * JSON array of one) as one JSON array, deflated with this connection's context, in a new
     * direct buffer. Always compressed, even when larger than plain: the deflater's window now
     * holds these bytes, and so must the client's.
     */
    ByteBuf frame(ByteBufAllocator alloc, byte[][] arrays) {
        length = 0;
        if (loop.settings.windowBits() == 15 && loop.settings.memLevel() == 8) {
            jdkFrame(arrays);
        } else {
            jzlibFrame(arrays);
        }
        loop.compressions.increment();
        lastUsed = loop.now();
        byte[] out = loop.scratch;
        int payload = length;
        if (payload >= TAIL.length && Arrays.equals(out, payload - TAIL.length, payload, TAIL, 0, TAIL.length)) {
            payload -= TAIL.length;
        }
        return SharedFrames.deflatedTextFrameHeader(alloc, payload).writeBytes(out, 0, payload);
    }

    private void jzlibFrame(byte[][] arrays) {
        com.jcraft.jzlib.Deflater zlib = deflater();
        try {
            if (arrays.length == 1) {
                feed(zlib, arrays[0], 0, arrays[0].length, JZlib.Z_SYNC_FLUSH);
            } else {
                feed(zlib, arrays[0], 0, arrays[0].length - 1, JZlib.Z_NO_FLUSH);
                for (int i = 1; i < arrays.length; i++) {
                    feed(zlib, COMMA, 0, 1, JZlib.Z_NO_FLUSH);
                    feed(zlib, arrays[i], 1, arrays[i].length - 2, JZlib.Z_NO_FLUSH);
                }
                feed(zlib, CLOSE, 0, 1, JZlib.Z_SYNC_FLUSH);
            }
        } catch (RuntimeException x) {
            // The stream is in an unknown state: the next message starts a fresh one.
            release();
            throw x;
        }
    }

    private void jdkFrame(byte[][] arrays) {
        java.util.zip.Deflater zlib = jdk;
        if (zlib == null) {
            zlib = new java.util.zip.Deflater(loop.level, true);
            jdk = zlib;
            listed();
        }
        if (arrays.length == 1) {
            feed(zlib, arrays[0], 0, arrays[0].length, java.util.zip.Deflater.SYNC_FLUSH);
            return;
        }
        feed(zlib, arrays[0], 0, arrays[0].length - 1, java.util.zip.Deflater.NO_FLUSH);
        for (int i = 1; i < arrays.length; i++) {
            feed(zlib, COMMA, 0, 1, java.util.zip.Deflater.NO_FLUSH);
            feed(zlib, arrays[i], 1, arrays[i].length - 2, java.util.zip.Deflater.NO_FLUSH);
        }
        feed(zlib, CLOSE, 0, 1, java.util.zip.Deflater.SYNC_FLUSH);
    }

    /** Like the JZlib one, with the JDK's deflater. */
    private void feed(java.util.zip.Deflater zlib, byte[] input, int offset, int count, int flush) {
        zlib.setInput(input, offset, count);
        while (true) {
            byte[] out = loop.scratch;
            length += zlib.deflate(out, length, out.length - length, flush);
            // A full output buffer may hide more output (Deflater's contract); with NO_FLUSH, so may unread input.
            if (length < out.length && (flush != java.util.zip.Deflater.NO_FLUSH || zlib.needsInput())) {
                return;
            }
            if (length == out.length) {
                loop.scratch = Arrays.copyOf(out, out.length * 2);
            }
        }
    }

    private void listed() {
        if (!listed) {
            listed = true;
            loop.holding(this);
        }
    }

    private com.jcraft.jzlib.Deflater deflater() {
        com.jcraft.jzlib.Deflater zlib = deflater;
        if (zlib == null) {
            try {
                zlib = new com.jcraft.jzlib.Deflater(loop.level, loop.settings.windowBits(), loop.settings.memLevel(), JZlib.W_NONE);
            } catch (GZIPException x) {
                throw new IllegalStateException("JZlib refused " + loop.settings, x);
            }
            deflater = zlib;
            listed();
        }
        return zlib;
    }

    /** Deflates {@code count} bytes of {@code input} from {@code offset} into the loop's scratch buffer, growing it as needed. */
    private void feed(com.jcraft.jzlib.Deflater zlib, byte[] input, int offset, int count, int flush) {
        zlib.setInput(input, offset, count, false);
        while (true) {
            byte[] out = loop.scratch;
            zlib.setOutput(out, length, out.length - length);
            int status = zlib.deflate(flush);
            if (status != JZlib.Z_OK && status != JZlib.Z_BUF_ERROR) {
                throw new IllegalStateException("JZlib failed: " + status + " " + zlib.msg);
            }
            length = zlib.next_out_index;
            // A full output buffer may hide more output; otherwise all the input was taken.
            if (zlib.avail_out > 0) {
                return;
            }
            loop.scratch = Arrays.copyOf(out, out.length * 2);
        }
    }

    /** On the loop, from its release round at {@code now}: drops the deflater if unused for {@code idleNanos}; whether it did. */
    boolean releaseIfIdle(long now, long idleNanos) {
        if ((deflater != null || jdk != null) && now - lastUsed < idleNanos) {
            return false;
        }
        release();
        listed = false;
        return true;
    }

    /** Drops the deflater (JZlib's memory goes with the garbage collector's next pass, the JDK's at once). */
    private void release() {
        com.jcraft.jzlib.Deflater zlib = deflater;
        if (zlib != null) {
            deflater = null;
            zlib.end();
        }
        java.util.zip.Deflater zip = jdk;
        if (zip != null) {
            jdk = null;
            zip.end();
        }
    }

    /** Whether the deflater is held. */
    boolean holding() {
        return deflater != null || jdk != null;
    }

    @Override
    public String toString() {
        return "ContextDeflater[" + (holding() ? "holding" : "released") + "]";
    }
}
