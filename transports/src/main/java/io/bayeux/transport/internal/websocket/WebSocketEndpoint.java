package io.bayeux.transport.internal.websocket;

import io.bayeux.api.Promise;
import io.bayeux.api.server.BayeuxContext;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.common.json.JsonCodec;
import io.bayeux.server.internal.ServerMessageImpl;
import io.bayeux.server.spi.Endpoint;
import io.bayeux.transport.internal.AcceptTimes;
import io.bayeux.transport.internal.ConnectionTypes;
import io.bayeux.transport.internal.LoopOutbox;
import io.bayeux.transport.internal.SharedFrames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrameEncoder;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A WebSocket connection as the core sees it: it can push at any time, from its event loop,
 * which owns its writes. The core writes queued messages there without flushing and flushes
 * once per round; it stops pushing while the channel is not writable.
 *
 * <p>A broadcast is encoded once: a frame that carries one message shares that message's
 * bytes with every other subscriber. Frames are built here, not by Netty's frame encoder: a
 * frame that carries one broadcast alone, header and payload, is built once per event-loop
 * turn into a direct buffer that every frame of that turn carrying it writes by reference
 * ({@link SharedFrames}): never copied per subscriber, and freed as soon as the last of those
 * frames is written, not when the garbage collector gets to it. A frame of several messages is
 * built for its connection: its messages of {@value #SHARED_MIN} bytes or more are referenced
 * from their turn's shared buffers, the rest copied into one pooled buffer.
 *
 * <p>On a connection that negotiated permessage-deflate, a broadcast's compressed bytes are
 * computed once for all subscribers (kept with its JSON bytes by the core's message) and its
 * compressed frame shared the same way; a frame of several messages is put together from each
 * message deflated once, the same way ({@link DeflatedBatch}); replies are compressed for the
 * connection with its event loop's deflater. What is under the threshold, or does not shrink,
 * goes as for any other connection. A connection that negotiated context takeover compresses
 * every message with its own {@link ContextDeflater} instead.
 */
final class WebSocketEndpoint implements Endpoint {
    /**
     * Payloads from this size on are shared by reference: in a frame of several messages, and
     * through the pipeline (before the frame encoder is in place), where Netty's frame encoder
     * writes them after the header, uncopied.
     */
    static final int SHARED_MIN = 1025;
    private static final String USER_AGENT = "User-Agent";

    private final Channel channel;
    /** The server's settings and the server itself, shared by its connections. */
    private final WebSocketShared shared;
    /** The cookie the upgrade sent, or the one its 101 set: never null. */
    private final String browserId;
    /** Whether the upgrade carried no cookie (browserId is the one its 101 set). */
    private final boolean cookieLess;
    /** The upgrade request's: every message on this connection carries it (and it has the user agent). */
    private final BayeuxContext bayeuxContext;
    /** Where replies written from the executor go: the loop's next round. */
    private final LoopOutbox outbox;
    /** The loop's deflater and inflater when the connection negotiated permessage-deflate, else null. */
    private final WebSocketShared.Deflation deflation;
    /** This connection's compression context when it negotiated context takeover, else null. */
    private final ContextDeflater context;
    /** When the connection was accepted (see {@link #acceptedAt()}), taken off the channel's attributes. */
    private final long acceptedAt;
    /** Counts writability changes, so that a check scheduled before the last change does nothing; loop-confined. */
    private long writabilityEpisode;
    /**
     * Whether anything was read or written since the idle sweep last looked, and when it first
     * found the connection quiet (valid while not active); loop-confined. Kept here, not in the
     * frame handler, because pushes are written under it.
     */
    private boolean active = true;
    private long quietSince;
    /** The connections before and after this one in its loop's {@link IdleSweep}; loop-confined. */
    WebSocketEndpoint sweptBefore;
    WebSocketEndpoint sweptAfter;
    /** Where frames are written from; loop-confined (see {@link #frameOut()}). */
    private ChannelHandlerContext frameOut;
    /** Whether the channel stayed unwritable for a stall time without its reader taking any byte. */
    private volatile boolean stalled;

    WebSocketEndpoint(Channel channel, WebSocketShared shared, String browserId, boolean cookieLess,
                      BayeuxContext bayeuxContext, LoopOutbox outbox, WebSocketShared.Deflation deflation, ContextDeflater context) {
        this.channel = channel;
        this.shared = shared;
        this.browserId = browserId;
        this.cookieLess = cookieLess;
        this.bayeuxContext = bayeuxContext;
        this.outbox = outbox;
        this.deflation = deflation;
        this.context = context;
        this.acceptedAt = AcceptTimes.take(channel);
    }

    /** The loop's deflater and inflater if this connection negotiated permessage-deflate, else null. */
    WebSocketShared.Deflation deflation() {
        return deflation;
    }

    @Override
    public String transportName() {
        return ConnectionTypes.WEBSOCKET;
    }

    @Override
    public boolean canPush() {
        return true;
    }

    @Override
    public Executor eventLoop() {
        return channel.eventLoop();
    }

    @Override
    public boolean isWritable() {
        return channel.isWritable();
    }

    @Override
    public boolean isStalled() {
        return stalled;
    }

    /**
     * On the loop: the channel's writability changed. Once unwritable, it is checked every
     * stall time: a reader that took none of the bytes waiting for it since the last check is
     * stalled; one that took some is slow, but reading.
     */
    void writabilityChanged(boolean writable, Runnable onStalled) {
        long episode = ++writabilityEpisode;
        if (writable) {
            stalled = false;
            return;
        }
        scheduleStallCheck(episode, pendingBytes(), onStalled);
    }

    private void scheduleStallCheck(long episode, long pendingBefore, Runnable onStalled) {
        channel.eventLoop().schedule(() -> {
            if (episode != writabilityEpisode || channel.isWritable() || !channel.isActive()) {
                return;
            }
            long pending = pendingBytes();
            if (pending < pendingBefore) {
                scheduleStallCheck(episode, pending, onStalled);
            } else {
                stalled = true;
                onStalled.run();
            }
        }, shared.stallNanos, TimeUnit.NANOSECONDS);
    }

    private long pendingBytes() {
        ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
        return buffer == null ? 0 : buffer.totalPendingWriteBytes();
    }

    @Override
    public void flush() {
        outbox.flushed();
        ChannelHandlerContext out = frameOut;
        if (out != null && !out.isRemoved()) {
            out.flush();
        } else {
            channel.flush();
        }
    }

    /**
     * On the event loop: writes one frame, unflushed; {@code written} hears only of a failure.
     * The frame is built here, header and payload in one buffer (a large shared payload goes by
     * reference next to its header), and written under the frame encoder, so it crosses only
     * what lies below it (TLS), not every handler of the pipeline.
     */
    @Override
    public void write(List<ServerMessage> messages, Promise<Void> written) {
        write(messages, null, written::fail);
    }

    @Override
    public void push(List<ServerMessage> batch, PushFailure failure) {
        write(batch, failure, null);
    }

    /** Writes {@code messages}; {@code failure} (told the batch) or {@code failed}, if either is given, hears of a failure. */
    private void write(List<ServerMessage> messages, PushFailure failure, Consumer<Throwable> failed) {
        if (!channel.isActive()) {
            fail(messages, failure, failed, new Closed());
            return;
        }
        ChannelHandlerContext out = frameOut();
        active = true;
        ByteBuf content;
        try {
            content = out == null ? content(messages)
                    : context != null ? contextFrame(out.alloc(), messages)
                    : deflation != null ? deflatedFrame(out.alloc(), messages)
                    : frame(out.alloc(), messages);
        } catch (JsonCodec.JsonException x) {
            fail(messages, failure, failed, x);
            return;
        }
        boolean tell = failure != null || failed != null;
        outbox.frameWritten();
        if (out == null) {
            ChannelFuture future = channel.write(new TextWebSocketFrame(content));
            if (tell) {
                future.addListener(f -> {
                    if (!f.isSuccess()) {
                        fail(messages, failure, failed, f.cause());
                    }
                });
            }
        } else {
            out.write(content, tell ? new FailurePromise(this, messages, failure, failed) : out.voidPromise());
        }
    }

    /** Tells of a failed write: {@code failure} if there is one, else {@code failed}, else no one. */
    void fail(List<ServerMessage> messages, PushFailure failure, Consumer<Throwable> failed, Throwable cause) {
        if (failure != null) {
            failure.pushFailed(this, messages, cause);
        } else if (failed != null) {
            failed.accept(cause);
        }
    }

    /** On the loop: something was read or written. */
    void active() {
        active = true;
    }

    /**
     * On the loop, from its idle sweep at {@code now}: whether nothing was read or written for
     * {@code idleNanos}. A connection found active is only marked quiet from now on.
     */
    boolean idleFor(long now, long idleNanos) {
        if (active) {
            active = false;
            quietSince = now;
            return false;
        }
        return now - quietSince >= idleNanos;
    }

    /** On the loop: the idle sweep found nothing read or written for the idle timeout. */
    void closeIdle() {
        ChannelHandlerContext ctx = channel.pipeline().context(WebSocketFrameHandler.NAME);
        if (ctx != null && ctx.handler() instanceof WebSocketFrameHandler frames) {
            frames.closeIdle(ctx);
        }
    }

    /**
     * The context frames are written from: the frame encoder's while the handshake's 101 is
     * being written (it sits before the HTTP encoder), then the frame handler's; null (frames go
     * down the whole pipeline, as uncompressed {@link TextWebSocketFrame}s) while neither is
     * there.
     */
    private ChannelHandlerContext frameOut() {
        ChannelHandlerContext out = frameOut;
        if (out == null || out.isRemoved()) {
            ChannelPipeline pipeline = channel.pipeline();
            out = pipeline.context(WebSocketFrameEncoder.class);
            if (out == null) {
                out = pipeline.context(WebSocketFrameHandler.NAME);
            }
            frameOut = out;
        }
        return out;
    }

    /** A whole text frame (FIN, no mask, as a server sends) carrying {@code messages} as one JSON array. */
    private ByteBuf frame(ByteBufAllocator alloc, List<ServerMessage> messages) throws JsonCodec.JsonException {
        if (messages.size() == 1) {
            ServerMessage message = messages.get(0);
            if (message instanceof ServerMessageImpl impl && impl.isFrozen()) {
                return outbox.frames().textFrame(impl, shared.bayeux.encodeArray(impl));
            }
            return SharedFrames.textFrame(alloc, shared.bayeux.encodeArray(message));
        }
        return batch(alloc, messages, true);
    }

    /**
     * A whole text frame carrying {@code messages}, compressed when they are {@code minBytes} or
     * more and compress: a broadcast's compressed bytes are computed once for all its
     * subscribers (cached with its JSON bytes) and its frame built once per loop turn; a frame
     * of several is assembled from each message deflated once; what is too small or does not
     * compress goes as {@link #frame} makes it.
     */
    private ByteBuf deflatedFrame(ByteBufAllocator alloc, List<ServerMessage> messages) throws JsonCodec.JsonException {
        int minBytes = shared.compression.minBytes();
        MessageDeflater deflater = deflation.deflater();
        if (messages.size() == 1 && messages.get(0) instanceof ServerMessageImpl impl && impl.isFrozen()) {
            byte[] array = shared.bayeux.encodeArray(impl);
            byte[] deflated = array.length < minBytes ? array : impl.compressArray(array, deflater.whole);
            return deflated == array ? frame(alloc, messages) : outbox.frames().deflatedFrame(impl, deflated);
        }
        if (messages.size() == 1) {
            byte[] array = shared.bayeux.encodeArray(messages.get(0));
            byte[] deflated = array.length < minBytes ? array : deflater.deflate(array);
            return deflated == array ? SharedFrames.textFrame(alloc, array) : SharedFrames.deflatedTextFrame(alloc, deflated);
        }
        byte[][] arrays = new byte[messages.size()][];
        int plain = 1 + arrays.length;
        for (int i = 0; i < arrays.length; i++) {
            arrays[i] = shared.bayeux.encodeArray(messages.get(i));
            plain += arrays[i].length - 2;
        }
        if (plain < minBytes) {
            return batch(alloc, messages, arrays, true);
        }
        byte[][] pieces = new byte[arrays.length][];
        for (int i = 0; i < arrays.length; i++) {
            pieces[i] = messages.get(i) instanceof ServerMessageImpl impl
                    ? impl.compressElement(arrays[i], deflater.element)
                    : deflater.deflateElement(arrays[i]);
        }
        int length = DeflatedBatch.payloadLength(arrays, pieces);
        return length < plain ? DeflatedBatch.frame(alloc, arrays, pieces, length) : batch(alloc, messages, arrays, true);
    }

    /** A whole text frame carrying {@code messages}, compressed by this connection's own context. */
    private ByteBuf contextFrame(ByteBufAllocator alloc, List<ServerMessage> messages) throws JsonCodec.JsonException {
        byte[][] arrays = new byte[messages.size()][];
        for (int i = 0; i < arrays.length; i++) {
            arrays[i] = shared.bayeux.encodeArray(messages.get(i));
        }
        return context.frame(alloc, messages, arrays);
    }

    /** Replies to what the client sent: written and flushed from any thread, in order with the pushes of the loop. */
    void reply(List<ServerMessage> messages) {
        if (!messages.isEmpty()) {
            outbox.write(channel, () -> write(messages, null, null));
        }
    }

    private ByteBuf content(List<ServerMessage> messages) throws JsonCodec.JsonException {
        if (messages.size() == 1) {
            ServerMessage message = messages.get(0);
            if (message instanceof ServerMessageImpl impl && impl.isFrozen()) {
                byte[] array = shared.bayeux.encodeArray(impl);
                if (array.length >= SHARED_MIN) {
                    return outbox.frames().share(impl, array);
                }
                return Unpooled.wrappedBuffer(array);
            }
            return Unpooled.wrappedBuffer(shared.bayeux.encodeArray(message));
        }
        return batch(channel.alloc(), messages, false);
    }

    /**
     * Several messages as one JSON array, behind a text frame's header when {@code framed}: in
     * one buffer, or referencing the shared buffers of those of {@value #SHARED_MIN} bytes or more.
     */
    private ByteBuf batch(ByteBufAllocator alloc, List<ServerMessage> messages, boolean framed) throws JsonCodec.JsonException {
        byte[][] parts = new byte[messages.size()][];
        for (int i = 0; i < parts.length; i++) {
            parts[i] = shared.bayeux.encodeArray(messages.get(i));
        }
        return batch(alloc, messages, parts, framed);
    }

    /** Like {@link #batch(ByteBufAllocator, List, boolean)}, the messages encoded as {@code parts} (each a JSON array of one). */
    private ByteBuf batch(ByteBufAllocator alloc, List<ServerMessage> messages, byte[][] parts, boolean framed) {
        int length = 1 + messages.size();
        boolean anyShared = false;
        for (int i = 0; i < parts.length; i++) {
            length += parts[i].length - 2;
            anyShared |= isShared(messages.get(i), parts[i]);
        }
        if (anyShared) {
            CompositeByteBuf batch = sharedBatch(messages, parts);
            return framed ? batch.addComponent(true, 0, SharedFrames.textFrameHeader(alloc, length, false)) : batch;
        }
        ByteBuf out = framed ? SharedFrames.textFrameHeader(alloc, length, true) : alloc.directBuffer(length, length);
        // One view of the payload to copy into: writing each part to the buffer itself costs an object per part.
        ByteBuffer payload = out.internalNioBuffer(out.writerIndex(), length);
        payload.put((byte) '[');
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) {
                payload.put((byte) ',');
            }
            payload.put(parts[i], 1, parts[i].length - 2);
        }
        payload.put((byte) ']');
        return out.writerIndex(out.writerIndex() + length);
    }

    /** A held connect's timeout is a timer on the connection's event loop (smaller than one on the server's scheduler). */
    @Override
    public Future<?> schedule(Runnable task, long delayMillis) {
        try {
            return channel.eventLoop().schedule(task, Math.max(0, delayMillis), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException x) {
            // The loop is shutting down: the server's scheduler times it.
            return null;
        }
    }

    /** Whether {@code message}, encoded as {@code array}, is written from a shared buffer. */
    private static boolean isShared(ServerMessage message, byte[] array) {
        return array.length >= SHARED_MIN && message instanceof ServerMessageImpl impl && impl.isFrozen();
    }

    /**
     * A frame of several messages in which those written from a shared buffer are referenced,
     * not copied: only the others and the separators are copied, into small buffers between
     * them. A reader that is behind gets its backlog without a copy of it of its own.
     */
    private CompositeByteBuf sharedBatch(List<ServerMessage> messages, byte[][] parts) {
        CompositeByteBuf out = channel.alloc().compositeDirectBuffer(Integer.MAX_VALUE);
        ByteBuf small = null;
        try {
            for (int i = 0; i < parts.length; i++) {
                byte[] part = parts[i];
                if (small == null) {
                    small = channel.alloc().directBuffer();
                }
                small.writeByte(i == 0 ? '[' : ',');
                if (isShared(messages.get(i), part)) {
                    ByteBuf piece = small;
                    small = null;
                    out.addComponent(true, piece);
                    // The slice shares the duplicate's reference: the frame's release gives it back.
                    ByteBuf whole = outbox.frames().share(messages.get(i), part);
                    out.addComponent(true, whole.slice(1, part.length - 2));
                } else {
                    small.writeBytes(part, 1, part.length - 2);
                }
            }
            if (small == null) {
                small = channel.alloc().directBuffer(1);
            }
            small.writeByte(']');
            ByteBuf last = small;
            small = null;
            out.addComponent(true, last);
            return out;
        } catch (RuntimeException x) {
            // What was added belongs to the frame (addComponent releases what it fails to add).
            if (small != null) {
                small.release();
            }
            out.release();
            throw x;
        }
    }

    Channel channel() {
        return channel;
    }

    @Override
    public String browserId() {
        return browserId;
    }

    @Override
    public boolean adoptsSessions() {
        return cookieLess;
    }

    @Override
    public long acceptedAt() {
        return acceptedAt;
    }

    /** Read from the upgrade's headers when asked (once, by a handshake): not kept twice by every connection. */
    @Override
    public String userAgent() {
        return bayeuxContext.getHeader(USER_AGENT);
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return channel.remoteAddress() instanceof InetSocketAddress address ? address : null;
    }

    WebSocketShared shared() {
        return shared;
    }

    @Override
    public BayeuxContext bayeuxContext() {
        return bayeuxContext;
    }

    @Override
    public String toString() {
        return "WebSocketEndpoint[" + channel + "]";
    }

    /**
     * A write to a connection that closed. Many come at once when many clients leave while
     * messages go to them: without a stack trace (it would show only the writing loop's frames) and
     * without the channel's text (its id formatted anew for each).
     */
    static final class Closed extends IllegalStateException {
        Closed() {
            super("WebSocket closed");
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }
}
