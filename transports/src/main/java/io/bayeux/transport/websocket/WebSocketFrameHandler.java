package io.bayeux.transport.websocket;

import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.common.json.JsonCodec;
import io.bayeux.server.BayeuxServerImpl;
import io.bayeux.server.spi.Connection;
import io.bayeux.transport.NettyBayeuxServer;
import io.bayeux.transport.ReadGate;
import io.bayeux.transport.SerialExecutor;
import io.bayeux.transport.http.HttpRequestHandler;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.timeout.IdleStateEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bayeux over one WebSocket connection: every text frame is a JSON array of messages,
 * handled in order on the application executor; replies and pushed messages go out as text
 * frames. Bad frames close the connection with the matching close code.
 */
final class WebSocketFrameHandler extends SimpleChannelInboundHandler<WebSocketFrame> {
    static final String NAME = "bayeuxWebSocket";
    private static final Logger LOG = LoggerFactory.getLogger(WebSocketFrameHandler.class);

    private final WebSocketServerHandshaker handshaker;
    private final BayeuxServerImpl bayeux;
    private final boolean handshakePerConnection;
    private final SerialExecutor serial;
    private final WebSocketEndpoint endpoint;
    private final Connection connection;
    /** Frames read but not yet handled past which the connection is not read. */
    static final int MAX_FRAMES_IN_FLIGHT = 32;
    /** Frames in flight at which reading resumes. */
    static final int RESUME_FRAMES_IN_FLIGHT = 8;
    private final AtomicInteger inFlight = new AtomicInteger();
    /**
     * Batches that publish, held while the server is behind with deliveries (and every batch
     * after them, to keep their order); only touched by the serial executor.
     */
    private ArrayDeque<List<ServerMessage.Mutable>> held;
    /** The sessions that handshook on this connection, when a handshake per connection is required. */
    private final Set<String> handshaken;

    WebSocketFrameHandler(WebSocketServerHandshaker handshaker, BayeuxServerImpl bayeux, NettyBayeuxServer.Builder config,
                          Executor executor, WebSocketEndpoint endpoint) {
        this.handshaker = handshaker;
        this.bayeux = bayeux;
        this.handshakePerConnection = config.handshakePerConnection();
        this.serial = new SerialExecutor(executor);
        this.endpoint = endpoint;
        this.connection = bayeux.newConnection(endpoint);
        this.handshaken = handshakePerConnection ? ConcurrentHashMap.newKeySet() : null;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, WebSocketFrame frame) {
        if (frame instanceof TextWebSocketFrame) {
            byte[] bytes = ByteBufUtil.getBytes(frame.content());
            if (inFlight.incrementAndGet() == MAX_FRAMES_IN_FLIGHT) {
                // The executor is behind with this connection: TCP holds the rest at the client.
                ReadGate.pause(ctx.channel(), ReadGate.BACKLOG);
            }
            try {
                serial.execute(() -> {
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
        } else if (frame instanceof BinaryWebSocketFrame) {
            close(ctx, WebSocketCloseStatus.INVALID_MESSAGE_TYPE, "Binary frames are not supported: send JSON text");
        } else if (frame instanceof PingWebSocketFrame) {
            ctx.writeAndFlush(new PongWebSocketFrame(frame.content().retain()));
        } else if (frame instanceof CloseWebSocketFrame) {
            handshaker.close(ctx, (CloseWebSocketFrame) frame.retain());
        }
    }

    /** On the executor, one frame at a time. */
    private void process(ChannelHandlerContext ctx, byte[] bytes) {
        List<ServerMessage.Mutable> batch;
        try {
            batch = bayeux.decode(bytes);
        } catch (JsonCodec.JsonException x) {
            close(ctx, WebSocketCloseStatus.PROTOCOL_ERROR, x.getMessage());
            return;
        }
        if (batch.isEmpty()) {
            close(ctx, WebSocketCloseStatus.PROTOCOL_ERROR, "Empty batch");
            return;
        }
        if (handshakePerConnection) {
            for (ServerMessage.Mutable message : batch) {
                if (!Channel.META_HANDSHAKE.equals(message.getChannel()) && !handshaken.contains(String.valueOf(message.getClientId()))) {
                    // Unknown here: the core answers 402 and the client handshakes again.
                    message.remove(Message.CLIENT_ID_FIELD);
                }
            }
        }
        if ((held != null && !held.isEmpty()) || (HttpRequestHandler.publishes(batch) && bayeux.isBehind())) {
            if (held == null) {
                held = new ArrayDeque<>();
            }
            // Readers that keep reading wait for deliveries: the publisher waits, not their
            // messages dropped. What it sent is held, in order, and it is no longer read.
            held.add(batch);
            if (held.size() == 1) {
                ReadGate.pause(ctx.channel(), ReadGate.OVERLOAD);
                bayeux.whenCaughtUp(() -> resumeHeld(ctx));
            }
            return;
        }
        handle(batch);
    }

    /** The server caught up: what was held is handled, in order, on the executor, unless it falls behind again. */
    private void resumeHeld(ChannelHandlerContext ctx) {
        inFlight.incrementAndGet();
        try {
            serial.execute(() -> {
                try {
                    while (!held.isEmpty()) {
                        List<ServerMessage.Mutable> batch = held.peek();
                        if (HttpRequestHandler.publishes(batch) && bayeux.isBehind()) {
                            bayeux.whenCaughtUp(() -> resumeHeld(ctx));
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

    /** A task of this connection on the executor ended: reading resumes when few enough are left. */
    private void taskDone(ChannelHandlerContext ctx) {
        if (inFlight.decrementAndGet() == RESUME_FRAMES_IN_FLIGHT) {
            ReadGate.resume(ctx.channel(), ReadGate.BACKLOG);
        }
    }

    /** On the executor, in order: the core handles a batch; its replies go back over the socket. */
    private void handle(List<ServerMessage.Mutable> batch) {
        connection.handle(batch, replies -> {
            if (handshakePerConnection) {
                for (ServerMessage reply : replies) {
                    if (Channel.META_HANDSHAKE.equals(reply.getChannel()) && reply.isSuccessful()) {
                        handshaken.add(reply.getClientId());
                    }
                }
            }
            endpoint.reply(replies);
        });
    }

    private static void close(ChannelHandlerContext ctx, WebSocketCloseStatus status, String reason) {
        String text = reason == null ? status.reasonText() : reason;
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > 120) {
            text = new String(utf8, 0, 120, StandardCharsets.UTF_8);
        }
        ctx.writeAndFlush(new CloseWebSocketFrame(status.code(), text)).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        connection.close();
        super.channelInactive(ctx);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        boolean writable = ctx.channel().isWritable();
        endpoint.writabilityChanged(writable, connection::stalled);
        if (writable) {
            connection.writable();
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof IdleStateEvent) {
            close(ctx, WebSocketCloseStatus.ENDPOINT_UNAVAILABLE, "Idle");
            return;
        }
        super.userEventTriggered(ctx, event);
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
