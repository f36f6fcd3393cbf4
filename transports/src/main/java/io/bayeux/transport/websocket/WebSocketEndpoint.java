package io.bayeux.transport.websocket;

import io.bayeux.api.Promise;
import io.bayeux.api.server.BayeuxContext;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.common.json.JsonCodec;
import io.bayeux.server.BayeuxServerImpl;
import io.bayeux.server.ServerMessageImpl;
import io.bayeux.server.spi.Endpoint;
import io.bayeux.transport.LoopOutbox;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * A WebSocket connection as the core sees it: it can push at any time, from its event loop,
 * which owns its writes. The core writes queued messages there without flushing and flushes
 * once per round; it stops pushing while the channel is not writable.
 *
 * <p>A broadcast is encoded once: a frame that carries one message shares that message's
 * bytes with every other subscriber. Small messages are copied once, by the frame encoder,
 * next to the frame's header; one of {@value #SHARED_MIN} bytes or more is copied once per
 * event-loop turn into a direct buffer that every frame of that turn carrying it, alone or
 * among others, writes by reference ({@link io.bayeux.transport.SharedFrames}): never copied
 * per subscriber, and freed as soon as the last of those frames is written, not when the
 * garbage collector gets to it.
 */
final class WebSocketEndpoint implements Endpoint {
    /** Netty's WebSocket encoder writes payloads of more than 1024 bytes by reference (a gathering write). */
    static final int SHARED_MIN = 1025;

    private final Channel channel;
    private final BayeuxServerImpl bayeux;
    /** The cookie the upgrade sent, or the one its 101 set: never null. */
    private final String browserId;
    /** Whether the upgrade carried no cookie (browserId is the one its 101 set). */
    private final boolean cookieLess;
    private final String userAgent;
    private final InetSocketAddress remoteAddress;
    /** The upgrade request's: every message on this connection carries it. */
    private final BayeuxContext bayeuxContext;
    private final long stallNanos;
    /** Where replies written from the executor go: the loop's next round. */
    private final LoopOutbox outbox;
    /** Counts writability changes, so that a check scheduled before the last change does nothing; loop-confined. */
    private long writabilityEpisode;
    /** Whether the channel stayed unwritable for a stall time without its reader taking any byte. */
    private volatile boolean stalled;

    WebSocketEndpoint(Channel channel, BayeuxServerImpl bayeux, String browserId, boolean cookieLess,
                      String userAgent, InetSocketAddress remoteAddress, BayeuxContext bayeuxContext, long stallNanos,
                      LoopOutbox outbox) {
        this.channel = channel;
        this.bayeux = bayeux;
        this.browserId = browserId;
        this.cookieLess = cookieLess;
        this.userAgent = userAgent;
        this.remoteAddress = remoteAddress;
        this.bayeuxContext = bayeuxContext;
        this.stallNanos = stallNanos;
        this.outbox = outbox;
    }

    @Override
    public String transportName() {
        return WebSocketUpgrade.WEBSOCKET;
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
        }, stallNanos, TimeUnit.NANOSECONDS);
    }

    private long pendingBytes() {
        ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
        return buffer == null ? 0 : buffer.totalPendingWriteBytes();
    }

    @Override
    public void flush() {
        channel.flush();
    }

    /** On the event loop: writes one frame, unflushed; {@code written} hears only of a failure. */
    @Override
    public void write(List<ServerMessage> messages, Promise<Void> written) {
        ByteBuf content;
        try {
            content = content(messages);
        } catch (JsonCodec.JsonException x) {
            written.fail(x);
            return;
        }
        if (!channel.isActive()) {
            content.release();
            written.fail(new IllegalStateException("WebSocket closed: " + channel));
            return;
        }
        ChannelFuture future = channel.write(new TextWebSocketFrame(content));
        if (future.isDone()) {
            if (!future.isSuccess()) {
                written.fail(future.cause());
            }
        } else {
            future.addListener(f -> {
                if (!f.isSuccess()) {
                    written.fail(f.cause());
                }
            });
        }
    }

    /** Replies to what the client sent: written and flushed from any thread, in order with the pushes of the loop. */
    void reply(List<ServerMessage> messages) {
        if (!messages.isEmpty()) {
            outbox.write(channel, () -> write(messages, Promise.noop()));
        }
    }

    private ByteBuf content(List<ServerMessage> messages) throws JsonCodec.JsonException {
        if (messages.size() == 1) {
            ServerMessage message = messages.get(0);
            if (message instanceof ServerMessageImpl impl && impl.isFrozen()) {
                byte[] array = bayeux.encodeArray(impl);
                if (array.length >= SHARED_MIN) {
                    return outbox.frames().share(impl, array);
                }
                return Unpooled.wrappedBuffer(array);
            }
            return Unpooled.wrappedBuffer(bayeux.encodeArray(message));
        }
        byte[][] parts = new byte[messages.size()][];
        int length = 1 + messages.size();
        boolean anyShared = false;
        for (int i = 0; i < parts.length; i++) {
            parts[i] = bayeux.encodeArray(messages.get(i));
            length += parts[i].length - 2;
            anyShared |= isShared(messages.get(i), parts[i]);
        }
        if (anyShared) {
            return sharedBatch(messages, parts);
        }
        ByteBuf out = channel.alloc().buffer(length);
        out.writeByte('[');
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) {
                out.writeByte(',');
            }
            out.writeBytes(parts[i], 1, parts[i].length - 2);
        }
        out.writeByte(']');
        return out;
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
    private ByteBuf sharedBatch(List<ServerMessage> messages, byte[][] parts) {
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
    public String userAgent() {
        return userAgent;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    @Override
    public BayeuxContext bayeuxContext() {
        return bayeuxContext;
    }

    @Override
    public String toString() {
        return "WebSocketEndpoint[" + channel + "]";
    }
}
