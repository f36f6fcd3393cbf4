package io.bayeux.transport.internal.websocket;

import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.common.json.JsonCodec;
import io.bayeux.server.spi.Connection;
import io.bayeux.transport.internal.Batches;
import io.bayeux.transport.internal.ReadGate;
import io.bayeux.transport.internal.SharedFrames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.zip.DataFormatException;

/**
 * Bayeux over one WebSocket connection: every text message (one frame, or a fragmented one
 * put together here) is a JSON array of messages, handled in order on the application
 * executor; replies and pushed messages go out as text frames. Bad frames close the
 * connection with the matching close code.
 *
 * <p>It is the only handler of the connection besides the frame decoder (it writes frames
 * already encoded, so that no encoder stays after the handshake), so that an idle
 * connection costs little: it puts fragments together and checks UTF-8 itself (Netty's
 * aggregator and validator are a handler each), stops reading while the connection cannot take
 * more writes, and tells the {@link IdleSweep} of its event loop whether anything was read or
 * written (instead of a timer per connection).
 */
final class WebSocketFrameHandler extends ChannelDuplexHandler implements Consumer<List<ServerMessage>> {
    static final String NAME = "bayeuxWebSocket";
    private static final Logger LOG = LoggerFactory.getLogger(WebSocketFrameHandler.class);
    private static final VarHandle IN_FLIGHT;
    /** A frame's RSV1 bit, as {@link WebSocketFrame#rsv()} tells it: set on a message compressed by permessage-deflate. */
    private static final int RSV1 = 0x4;

    static {
        try {
            IN_FLIGHT = MethodHandles.lookup().findVarHandle(WebSocketFrameHandler.class, "inFlight", int.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final WebSocketEndpoint endpoint;
    private final Connection connection;
    /** Frames read but not yet handled past which the connection is not read. */
    static final int MAX_FRAMES_IN_FLIGHT = 32;
    /** Frames in flight at which reading resumes. */
    static final int RESUME_FRAMES_IN_FLIGHT = 8;
    /** Frames read and not yet handled; through IN_FLIGHT. */
    @SuppressWarnings("unused")
    private volatile int inFlight;
    /** The fragments of a text message not yet complete, or null; loop-confined. */
    private CompositeByteBuf fragments;
    /** Whether {@link #fragments} are compressed (its first frame had RSV1); loop-confined. */
    private boolean fragmentsDeflated;
    /**
     * What the client's next compressed message may refer to, while it has not shown that it
     * honours {@code client_no_context_takeover} (or for good, when it does not); loop-confined.
     */
    private PeerWindow peerWindow;
    /** Whether the client showed that it compresses each message alone: no {@link #peerWindow} again; loop-confined. */
    private boolean peerWithoutContext;
    /**
     * Batches that publish, held while the server is behind with deliveries (and every batch
     * after them, to keep their order); only touched by this connection's tasks on the executor (see runInOrder).
     */
    private ArrayDeque<List<ServerMessage.Mutable>> held;
    /** The oldest task of this connection waiting for the executor while {@link #moreTasks} is empty, or null; guarded by this. */
    private Runnable nextTask;
    /** The tasks after {@link #nextTask}, made when two wait at once; guarded by this. */
    private ArrayDeque<Runnable> moreTasks;
    /** Whether a task of this connection runs or is about to on the executor; guarded by this. */
    private boolean draining;
    /**
     * The sessions that handshook on this connection, when a handshake per connection is
     * required: null until the first, then its id, then an immutable set of two or more
     * (most connections handshake once or twice); written under this handler's monitor.
     */
    private volatile Object handshaken;

    WebSocketFrameHandler(WebSocketEndpoint endpoint) {
        this.endpoint = endpoint;
        this.connection = endpoint.shared().bayeux.newConnection(endpoint);
    }

    /** The server's settings and the server itself, through the endpoint: no field per connection. */
    private WebSocketShared shared() {
        return endpoint.shared();
    }

    private boolean handshookHere(String clientId) {
        Object ids = handshaken;
        return ids instanceof Set<?> set ? set.contains(clientId) : clientId.equals(ids);
    }

    private synchronized void handshook(String clientId) {
        Object ids = handshaken;
        if (ids == null) {
            handshaken = clientId;
        } else if (ids instanceof Set<?> set) {
            if (!set.contains(clientId)) {
                Set<Object> more = new HashSet<>(set);
                more.add(clientId);
                handshaken = Set.copyOf(more);
            }
        } else if (!ids.equals(clientId)) {
            handshaken = Set.of(ids, clientId);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof ReadGate.HeldBack held) {
            connection.heldBack(held == ReadGate.HeldBack.HELD_BACK);
            return;
        }
        super.userEventTriggered(ctx, event);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        endpoint.active();
        if (message instanceof WebSocketFrame frame) {
            try {
                frameRead(ctx, frame);
            } finally {
                frame.release();
            }
        } else {
            ctx.fireChannelRead(message);
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object message, ChannelPromise promise) {
        endpoint.active();
        // A frame written as an object from the pipeline's tail (the server's shutdown closes
        // every connection so): there is no frame encoder after the handshake.
        ctx.write(message instanceof WebSocketFrame frame ? SharedFrames.frame(ctx.alloc(), frame) : message, promise);
    }

    private void frameRead(ChannelHandlerContext ctx, WebSocketFrame frame) {
        // The decoder lets RSV bits through when the server may negotiate permessage-deflate:
        // RSV1 is allowed only on the first frame of a data message of a connection that did.
        int rsv = frame.rsv();
        boolean deflated = rsv == RSV1 && endpoint.deflation() != null
                && (frame instanceof TextWebSocketFrame || frame instanceof BinaryWebSocketFrame);
        if (rsv != 0 && !deflated) {
            close(ctx, WebSocketCloseStatus.PROTOCOL_ERROR, "RSV bits " + rsv + " set without an extension that allows them");
            return;
        }
        if (frame instanceof TextWebSocketFrame) {
            if (frame.isFinalFragment()) {
                textRead(ctx, frame.content(), deflated);
            } else {
                dropFragments();
                fragments = ctx.alloc().compositeBuffer();
                fragmentsDeflated = deflated;
                addFragment(ctx, frame);
            }
        } else if (frame instanceof ContinuationWebSocketFrame) {
            // The decoder lets continuations through only inside a fragmented message: a
            // fragmented binary one was refused at its first frame, and closes the connection.
            if (fragments != null && addFragment(ctx, frame) && frame.isFinalFragment()) {
                CompositeByteBuf whole = fragments;
                fragments = null;
                try {
                    textRead(ctx, whole, fragmentsDeflated);
                } finally {
                    whole.release();
                }
            }
        } else if (frame instanceof BinaryWebSocketFrame) {
            close(ctx, WebSocketCloseStatus.INVALID_MESSAGE_TYPE, "Binary frames are not supported: send JSON text");
        } else if (frame instanceof PingWebSocketFrame) {
            ctx.writeAndFlush(SharedFrames.frame(ctx.alloc(), new PongWebSocketFrame(frame.content().retain())));
        } else if (frame instanceof CloseWebSocketFrame) {
            ctx.writeAndFlush(SharedFrames.frame(ctx.alloc(), frame.retain())).addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** A compressed message inflated, with what the client's earlier ones inflated to while it may refer to them. */
    private byte[] inflate(ByteBuf content) throws MessageInflater.TooLargeException, DataFormatException {
        MessageInflater inflater = endpoint.deflation().inflater();
        if (peerWithoutContext) {
            return inflater.inflate(content, shared().maxMessageSize);
        }
        if (peerWindow == null) {
            peerWindow = new PeerWindow();
        }
        byte[] inflated = peerWindow.inflate(inflater, content, shared().maxMessageSize);
        if (!peerWindow.needed()) {
            peerWindow = null;
            peerWithoutContext = true;
        }
        return inflated;
    }

    /** @return whether the fragment was added; a message past the maximum size closes the connection instead */
    private boolean addFragment(ChannelHandlerContext ctx, WebSocketFrame frame) {
        if (fragments.readableBytes() + frame.content().readableBytes() > shared().maxMessageSize) {
            dropFragments();
            close(ctx, WebSocketCloseStatus.MESSAGE_TOO_BIG, "Message larger than the maximum size");
            return false;
        }
        fragments.addComponent(true, frame.content().retain());
        return true;
    }

    private void dropFragments() {
        if (fragments != null) {
            fragments.release();
            fragments = null;
        }
    }

    /**
     * A whole text message, inflated first if {@code deflated} (refused with 1009 past the
     * maximum size, however small its compressed form): checked to be UTF-8, then handed to the
     * executor, in order.
     */
    private void textRead(ChannelHandlerContext ctx, ByteBuf content, boolean deflated) {
        if (deflated) {
            byte[] inflated;
            try {
                inflated = inflate(content);
            } catch (MessageInflater.TooLargeException x) {
                close(ctx, WebSocketCloseStatus.MESSAGE_TOO_BIG, x.getMessage());
                return;
            } catch (DataFormatException x) {
                close(ctx, WebSocketCloseStatus.INVALID_PAYLOAD_DATA, "Invalid permessage-deflate data: " + x.getMessage());
                return;
            }
            textRead(ctx, Unpooled.wrappedBuffer(inflated), false);
            return;
        }
        if (!ByteBufUtil.isText(content, StandardCharsets.UTF_8)) {
            close(ctx, WebSocketCloseStatus.INVALID_PAYLOAD_DATA, "Invalid UTF-8 in a text message");
            return;
        }
        byte[] bytes = content.hasArray() && content.arrayOffset() == 0 && content.readerIndex() == 0
                && content.readableBytes() == content.array().length ? content.array() : ByteBufUtil.getBytes(content);
        if ((int) IN_FLIGHT.getAndAdd(this, 1) + 1 == MAX_FRAMES_IN_FLIGHT) {
            // The executor is behind with this connection: TCP holds the rest at the client.
            // Applied only if still that busy: the resume of a burst that drained meanwhile may come first.
            ReadGate.pauseIf(ctx.channel(), ReadGate.BACKLOG, () -> inFlight > RESUME_FRAMES_IN_FLIGHT);
        }
        try {
            runInOrder(() -> {
                try {
                    process(ctx, bytes);
                } finally {
                    taskDone(ctx);
                }
            });
        } catch (RejectedExecutionException x) {
            taskDone(ctx);
            close(ctx, WebSocketCloseStatus.TRY_AGAIN_LATER, "Server overloaded");
        }
    }

    /** On the executor, one frame at a time. */
    private void process(ChannelHandlerContext ctx, byte[] bytes) {
        List<ServerMessage.Mutable> batch;
        try {
            batch = shared().bayeux.decode(bytes);
        } catch (JsonCodec.JsonException x) {
            close(ctx, WebSocketCloseStatus.PROTOCOL_ERROR, x.getMessage());
            return;
        }
        if (batch.isEmpty()) {
            close(ctx, WebSocketCloseStatus.PROTOCOL_ERROR, "Empty batch");
            return;
        }
        if (shared().handshakePerConnection) {
            for (ServerMessage.Mutable message : batch) {
                if (!Channel.META_HANDSHAKE.equals(message.getChannel()) && !handshookHere(String.valueOf(message.getClientId()))) {
                    // Unknown here: the core answers 402 and the client handshakes again.
                    message.remove(Message.CLIENT_ID_FIELD);
                }
            }
        }
        if ((held != null && !held.isEmpty()) || (Batches.publishes(batch) && shared().bayeux.isBehind())) {
            if (held == null) {
                held = new ArrayDeque<>();
            }
            // Readers that keep reading wait for deliveries: the publisher waits, not their
            // messages dropped. What it sent is held, in order, and it is no longer read.
            held.add(batch);
            if (held.size() == 1) {
                ReadGate.pause(ctx.channel(), ReadGate.OVERLOAD);
                shared().bayeux.whenCaughtUp(() -> resumeHeld(ctx));
            }
            return;
        }
        handle(batch);
    }

    /** The server caught up: what was held is handled, in order, on the executor, unless it falls behind again. */
    private void resumeHeld(ChannelHandlerContext ctx) {
        IN_FLIGHT.getAndAdd(this, 1);
        try {
            runInOrder(() -> {
                try {
                    while (!held.isEmpty()) {
                        List<ServerMessage.Mutable> batch = held.peek();
                        if (Batches.publishes(batch) && shared().bayeux.isBehind()) {
                            shared().bayeux.whenCaughtUp(() -> resumeHeld(ctx));
                            return;
                        }
                        held.poll();
                        handle(batch);
                    }
                    ReadGate.resume(ctx.channel(), ReadGate.OVERLOAD);
                } finally {
                    taskDone(ctx);
                }
            });
        } catch (RejectedExecutionException x) {
            taskDone(ctx);
            close(ctx, WebSocketCloseStatus.TRY_AGAIN_LATER, "Server overloaded");
        }
    }

    /**
     * Runs {@code task} on the executor after this connection's tasks before it, never two at
     * once: what arrives on the connection is handled in order without a thread of its own (and
     * without a serial executor object of its own: the queue is one field while at most one task
     * waits, as on most connections, a deque only while more do).
     *
     * @throws RejectedExecutionException when the executor refuses it (nothing of this connection waits then)
     */
    private void runInOrder(Runnable task) {
        synchronized (this) {
            if (nextTask == null && (moreTasks == null || moreTasks.isEmpty())) {
                nextTask = task;
            } else {
                if (moreTasks == null) {
                    moreTasks = new ArrayDeque<>(4);
                }
                moreTasks.add(task);
            }
            if (draining) {
                return;
            }
            draining = true;
        }
        try {
            shared().executor.execute(this::drainTasks);
        } catch (RejectedExecutionException x) {
            synchronized (this) {
                nextTask = null;
                moreTasks = null;
                draining = false;
            }
            throw x;
        }
    }

    private void drainTasks() {
        while (true) {
            Runnable task;
            synchronized (this) {
                task = nextTask;
                if (task != null) {
                    nextTask = null;
                } else if (moreTasks != null) {
                    task = moreTasks.poll();
                    if (moreTasks.isEmpty()) {
                        // A burst is over: an idle connection keeps no deque.
                        moreTasks = null;
                    }
                }
                if (task == null) {
                    draining = false;
                    return;
                }
            }
            task.run();
        }
    }

    /** A task of this connection on the executor ended: reading resumes when few enough are left. */
    private void taskDone(ChannelHandlerContext ctx) {
        if ((int) IN_FLIGHT.getAndAdd(this, -1) - 1 == RESUME_FRAMES_IN_FLIGHT) {
            ReadGate.resumeIf(ctx.channel(), ReadGate.BACKLOG, () -> inFlight <= RESUME_FRAMES_IN_FLIGHT);
        }
    }

    /** On the executor, in order: the core handles a batch; its replies go back over the socket. */
    private void handle(List<ServerMessage.Mutable> batch) {
        connection.handle(batch, this);
    }

    /**
     * The replies of a batch, from the thread that completed it: they go back over the socket.
     * (The handler takes them itself: a held connect keeps no responder object of its own.)
     */
    @Override
    public void accept(List<ServerMessage> replies) {
        if (shared().handshakePerConnection) {
            for (ServerMessage reply : replies) {
                if (Channel.META_HANDSHAKE.equals(reply.getChannel()) && reply.isSuccessful() && reply.getClientId() != null) {
                    handshook(reply.getClientId());
                }
            }
        }
        endpoint.reply(replies);
    }

    private static void close(ChannelHandlerContext ctx, WebSocketCloseStatus status, String reason) {
        String text = reason == null ? status.reasonText() : reason;
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > 120) {
            text = new String(utf8, 0, 120, StandardCharsets.UTF_8);
        }
        ctx.writeAndFlush(SharedFrames.frame(ctx.alloc(), new CloseWebSocketFrame(status.code(), text))).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        shared().sweepOf(ctx.channel().eventLoop()).add(endpoint);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        dropFragments();
        shared().sweepOf(ctx.channel().eventLoop()).remove(endpoint);
        connection.close();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        dropFragments();
        shared().sweepOf(ctx.channel().eventLoop()).remove(endpoint);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        boolean writable = ctx.channel().isWritable();
        // What the shared read back-pressure handler does on HTTP connections (see ReadBackpressure).
        if (writable) {
            ReadGate.resume(ctx.channel(), ReadGate.UNWRITABLE);
        } else {
            ReadGate.pause(ctx.channel(), ReadGate.UNWRITABLE);
        }
        endpoint.writabilityChanged(writable, connection::stalled);
        if (writable) {
            connection.writable();
        }
        super.channelWritabilityChanged(ctx);
    }

    /** On the loop: the idle sweep found nothing read or written for the idle timeout. */
    void closeIdle(ChannelHandlerContext ctx) {
        close(ctx, WebSocketCloseStatus.ENDPOINT_UNAVAILABLE, "Idle");
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof CorruptedWebSocketFrameException corrupted) {
            close(ctx, corrupted.closeStatus(), corrupted.getMessage());
        } else if (cause instanceof TooLongFrameException) {
            close(ctx, WebSocketCloseStatus.MESSAGE_TOO_BIG, "Message larger than the maximum size");
        } else {
            LOG.debug("WebSocket {} failed", ctx.channel(), cause);
            ctx.close();
        }
    }
}
