package io.bayeux.transport.internal;

import io.bayeux.transport.ServerSettings;
import io.bayeux.transport.internal.websocket.WebSocketUpgrade;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.ServerChannelRecvByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.util.concurrent.DefaultThreadFactory;

import java.net.InetSocketAddress;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The network side of a started server: its acceptor and I/O event loops and its listening
 * socket, on epoll where it loads, else NIO. Made by {@link #bind}, ended by
 * {@link #closeConnections()} then {@link #shutdown()}; never started twice. Called under the
 * owning server's lock.
 */
public final class BoundServer {
    /** The most connections the kernel queues for the accept loop. */
    private static final int BACKLOG = 1024;

    private final EventLoopGroup acceptor;
    /** The accept loop's I/O, which runs tasks after the accepts of its next pass. */
    private final AcceptLoop acceptLoop;
    private final EventLoopGroup loops;
    private final ChannelGroup connections;
    private final boolean epoll;
    /** The listening socket; null until bound and once closed. Guarded by the owning server's lock. */
    private Channel listener;

    private BoundServer(AcceptLoop acceptLoop, EventLoopGroup loops, ChannelGroup connections, boolean epoll) {
        this.acceptLoop = acceptLoop;
        this.acceptor = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("bayeux-accept"), acceptLoop);
        this.loops = loops;
        this.connections = connections;
        this.epoll = epoll;
    }

    /**
     * Starts the event loops and binds {@code settings}' host and port, every connection set up by
     * {@code initializer} and kept in {@code connections}. On failure everything started is
     * stopped again and an {@link IllegalStateException} names the address.
     */
    public static BoundServer bind(ServerSettings settings, BayeuxServerInitializer initializer, ChannelGroup connections,
                                   AcceptTimes acceptTimes) {
        boolean epoll = Epoll.isAvailable();
        IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        BoundServer bound = new BoundServer(new AcceptLoop(io),
                new MultiThreadIoEventLoopGroup(settings.ioThreads(), new DefaultThreadFactory("bayeux-io"), io), connections, epoll);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(bound.acceptor, bound.loops)
                .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, BACKLOG)
                // One read of the listening socket takes every queued connection: what runs after
                // accepts (see AcceptLoop) comes after all of them.
                .option(ChannelOption.RCVBUF_ALLOCATOR, new ServerChannelRecvByteBufAllocator().maxMessagesPerRead(BACKLOG))
                .handler(acceptTimes)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(32 * 1024, 256 * 1024))
                // One allocator for every connection (by default each makes its own; the per-connection state is its handle).
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, new AdaptiveRecvByteBufAllocator())
                .childHandler(initializer);
        String address = settings.host() + ":" + settings.port();
        try {
            bound.listener = bootstrap.bind(settings.host(), settings.port()).sync().channel();
            return bound;
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            bound.shutdown();
            throw new IllegalStateException("Interrupted while binding " + address, x);
        } catch (Exception x) {
            // sync() rethrows the bind's cause as it is: a BindException, checked but undeclared, among others.
            bound.shutdown();
            throw new IllegalStateException("Cannot bind " + address + ": " + x.getMessage(), x);
        }
    }

    /**
     * Runs tasks on the accept loop once every connection that had reached the server when they
     * were given is accepted (see {@link AcceptLoop}).
     */
    public Executor afterAccepts() {
        return acceptLoop.afterAccepts(listener.eventLoop());
    }

    /** The bound port. */
    public int port() {
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    /** The I/O event loops. */
    public EventLoopGroup loops() {
        return loops;
    }

    public boolean epoll() {
        return epoll;
    }

    /** Stops accepting, sends WebSocket peers a 1001 close frame, and closes every connection. */
    public void closeConnections() {
        if (listener != null) {
            listener.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
            listener = null;
        }
        connections.writeAndFlush(new CloseWebSocketFrame(WebSocketCloseStatus.ENDPOINT_UNAVAILABLE, "Server stopping"),
                channel -> channel.pipeline().get(WebSocketUpgrade.FRAME_HANDLER) != null).awaitUninterruptibly(2, TimeUnit.SECONDS);
        connections.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /** Stops the event loops. */
    public void shutdown() {
        loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        acceptor.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }
}
