package io.bayeux.transport.internal.websocket;

import io.bayeux.transport.internal.SharedFrames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The compression context of one connection that negotiated {@code permessage-deflate} with
 * context takeover: every message it sends compressed goes through one
 * {@link FixedHuffmanDeflater} (of the context's window; its hash table of
 * {@code 2^(memLevel + 6)} entries), which keeps its window from one message to the next, so
 * that a message refers back to those before it. Each message ends with a sync flush whose
 * empty block's four bytes ({@code 00 00 ff ff}) are left out (RFC 7692, 7.2.1).
 *
 * <p>The deflater is made when a frame needs it and dropped by the loop's {@link LoopContexts}
 * once the connection has sent nothing compressed for the release time: between messages, a
 * fresh deflater's output refers to nothing before it, which the client's inflater, however much
 * history it keeps, inflates the same. An idle connection holds this object and no deflater.
 *
 * <p>Loop-confined.
 */
final class ContextDeflater {
    private final LoopContexts loop;
    /** The deflater while the connection is busy; null once released. */
    private FixedHuffmanDeflater deflater;
    /** Whether the loop's release round has this context in its list. */
    private boolean listed;
    /** When the last message was compressed, for the release. */
    private long lastUsed;

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
        FixedHuffmanDeflater current = deflater;
        if (current == null) {
            current = new FixedHuffmanDeflater(1 << loop.settings.windowBits(), Math.max(8, loop.settings.memLevel() + 6));
            deflater = current;
            if (!listed) {
                listed = true;
                loop.holding(this);
            }
        }
        current.output(loop.scratch);
        int payload;
        if (arrays.length == 1) {
            payload = current.compress(arrays[0], 0, arrays[0].length);
        } else {
            int length = 1;
            for (byte[] array : arrays) {
                length += array.length - 1;
            }
            byte[] input = loop.input(length);
            int at = 0;
            for (int i = 0; i < arrays.length; i++) {
                // Each "[m]" gives "[" (the first) or "," then "m"; one "]" closes the whole.
                input[at++] = i == 0 ? (byte) '[' : (byte) ',';
                System.arraycopy(arrays[i], 1, input, at, arrays[i].length - 2);
                at += arrays[i].length - 2;
            }
            input[at++] = ']';
            payload = current.compress(input, 0, at);
        }
        loop.scratch = current.output();
        loop.compressions.increment();
        lastUsed = loop.now();
        return SharedFrames.deflatedTextFrameHeader(alloc, payload).writeBytes(loop.scratch, 0, payload);
    }

    /** On the loop, from its release round at {@code now}: drops the deflater if unused for {@code idleNanos}; whether it did. */
    boolean releaseIfIdle(long now, long idleNanos) {
        if (deflater != null && now - lastUsed < idleNanos) {
            return false;
        }
        deflater = null;
        listed = false;
        return true;
    }

    /** Whether the deflater is held. */
    boolean holding() {
        return deflater != null;
    }

    @Override
    public String toString() {
        return "ContextDeflater[" + (holding() ? "holding" : "released") + "]";
    }
}
