package io.bayeux.transport.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;

/**
 * The direct buffers of one event loop's current turn that hold a broadcast's encoded bytes,
 * shared by every frame that carries that message alone: each frame gets a
 * {@linkplain ByteBuf#retainedDuplicate() retained duplicate}, written by reference, never
 * copied per subscriber.
 *
 * <p>A buffer lives as long as its turn plus the writes that use it: the first buffer made in
 * a turn submits one task to the loop, which runs once the turn (a push round, with the rounds
 * it continues into) is over and drops this cache's reference to each buffer; each frame
 * releases its own reference once written or failed, and the last one frees the memory at
 * once. So a message that waits in the queue of a reader that does not read holds no direct
 * memory: when it goes out later it gets a buffer of that later turn. What the server's
 * broadcasts hold in direct memory is at most the frames waiting in its connections' outbound
 * buffers (bounded by their high water mark) plus one buffer per message of the current turn;
 * it never waits for the garbage collector.
 *
 * <p>Loop-confined: {@link #share} must be called on {@code loop} (elsewhere it returns a
 * buffer of its own, not cached).
 */
public final class SharedFrames {
    /** The first byte of a final text frame, and of one with RSV1 set (permessage-deflate). */
    private static final int FIN_TEXT = 0x81;
    private static final int FIN_TEXT_DEFLATED = 0xC1;

    private final EventLoop loop;
    private final ByteBufAllocator alloc;
    /** This turn's payloads and whole text frames, by message identity; loop-confined. */
    private final Map<Object, ByteBuf> payloads = new IdentityHashMap<>();
    private final Map<Object, ByteBuf> frames = new IdentityHashMap<>();
    private final Map<Object, ByteBuf> deflatedFrames = new IdentityHashMap<>();
    private final Runnable endOfTurn = this::endTurn;

    SharedFrames(EventLoop loop, ByteBufAllocator alloc) {
        this.loop = loop;
        this.alloc = alloc;
    }

    /**
     * A retained duplicate of the direct buffer that holds {@code bytes} (the encoded form of
     * {@code key}, which must not change) for this turn; the caller owns it and releases it
     * (writing it does).
     */
    public ByteBuf share(Object key, byte[] bytes) {
        return shared(payloads, key, bytes, false);
    }

    /**
     * Like {@link #share}, for a whole WebSocket text frame whose payload is {@code payload}:
     * the frame's header and payload are built once per turn, in one buffer.
     */
    public ByteBuf textFrame(Object key, byte[] payload) {
        return shared(frames, key, payload, true);
    }

    /**
     * Like {@link #textFrame}, for a text frame compressed by permessage-deflate (RSV1 set) whose
     * payload is {@code deflated}, the compressed form of {@code key}.
     */
    public ByteBuf deflatedFrame(Object key, byte[] deflated) {
        return shared(deflatedFrames, key, deflated, true);
    }

    private ByteBuf shared(Map<Object, ByteBuf> cache, Object key, byte[] bytes, boolean frame) {
        if (!loop.inEventLoop()) {
            return make(cache, bytes, frame);
        }
        ByteBuf shared = cache.get(key);
        if (shared == null) {
            shared = make(cache, bytes, frame);
            if (kept() == 0) {
                try {
                    loop.execute(endOfTurn);
                } catch (RejectedExecutionException x) {
                    // The loop is shutting down: nothing would end this turn, so nothing is kept.
                    return shared;
                }
            }
            cache.put(key, shared);
        }
        return shared.retainedDuplicate();
    }

    private ByteBuf make(Map<Object, ByteBuf> cache, byte[] bytes, boolean frame) {
        if (!frame) {
            return alloc.directBuffer(bytes.length, bytes.length).writeBytes(bytes);
        }
        return cache == deflatedFrames ? deflatedTextFrame(alloc, bytes) : textFrame(alloc, bytes);
    }

    /** A WebSocket text frame (final, unmasked, as a server sends it) carrying {@code payload}, in a new direct buffer. */
    public static ByteBuf textFrame(ByteBufAllocator alloc, byte[] payload) {
        return textFrameHeader(alloc, payload.length, true).writeBytes(payload);
    }

    /** Like {@link #textFrame(ByteBufAllocator, byte[])} with RSV1 set: {@code deflated} is a permessage-deflate payload. */
    public static ByteBuf deflatedTextFrame(ByteBufAllocator alloc, byte[] deflated) {
        return frameHeader(alloc, FIN_TEXT_DEFLATED, deflated.length, true).writeBytes(deflated);
    }

    /** A new direct buffer holding the header of a text frame with RSV1 set (permessage-deflate) and room for its {@code length} bytes of payload. */
    public static ByteBuf deflatedTextFrameHeader(ByteBufAllocator alloc, int length) {
        return frameHeader(alloc, FIN_TEXT_DEFLATED, length, true);
    }

    /**
     * A new direct buffer holding the header of a text frame with a payload of {@code length}
     * bytes, and room for that payload if {@code room}.
     */
    public static ByteBuf textFrameHeader(ByteBufAllocator alloc, int length, boolean room) {
        return frameHeader(alloc, FIN_TEXT, length, room);
    }

    /**
     * {@code frame} as a server writes it (unmasked, its FIN and RSV bits kept), in a new direct
     * buffer; releases {@code frame}. For the frames the server writes as objects (close, pong,
     * a shutdown's close to every connection): no frame encoder stays in an idle connection's
     * pipeline for them.
     */
    public static ByteBuf frame(ByteBufAllocator alloc, WebSocketFrame frame) {
        try {
            int opcode = frame instanceof TextWebSocketFrame ? 0x1
                    : frame instanceof BinaryWebSocketFrame ? 0x2
                    : frame instanceof CloseWebSocketFrame ? 0x8
                    : frame instanceof PingWebSocketFrame ? 0x9
                    : frame instanceof PongWebSocketFrame ? 0xA
                    : 0x0; // a continuation
            int first = (frame.isFinalFragment() ? 0x80 : 0) | (frame.rsv() & 0x7) << 4 | opcode;
            ByteBuf content = frame.content();
            return frameHeader(alloc, first, content.readableBytes(), true).writeBytes(content, content.readerIndex(), content.readableBytes());
        } finally {
            frame.release();
        }
    }

    private static ByteBuf frameHeader(ByteBufAllocator alloc, int first, int length, boolean room) {
        int size = (length < 126 ? 2 : length < 65536 ? 4 : 10) + (room ? length : 0);
        ByteBuf out = alloc.directBuffer(size, size);
        out.writeByte(first);
        if (length < 126) {
            out.writeByte(length);
        } else if (length < 65536) {
            out.writeByte(126).writeShort(length);
        } else {
            out.writeByte(127).writeLong(length);
        }
        return out;
    }

    /** The number of buffers kept for the current turn; on the loop. */
    int kept() {
        return payloads.size() + frames.size() + deflatedFrames.size();
    }

    /** On the loop, once the turn is over: drops this cache's reference to each buffer of the turn. */
    private void endTurn() {
        release(payloads);
        release(frames);
        release(deflatedFrames);
    }

    private static void release(Map<Object, ByteBuf> cache) {
        for (ByteBuf buffer : cache.values()) {
            buffer.release();
        }
        cache.clear();
    }

    @Override
    public String toString() {
        return "SharedFrames[" + loop + ", kept=" + kept() + "]";
    }
}
