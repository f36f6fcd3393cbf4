package io.bayeux.transport.internal;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What runs after accepts runs once the connections queued before it are accepted, and promptly on an idle loop. */
class AcceptLoopTest {
    private final AcceptLoop acceptLoop = new AcceptLoop(NioIoHandler.newFactory());
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, acceptLoop);
    private final EventLoopGroup children = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final List<Socket> clients = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (Socket client : clients) {
            client.close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        children.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void aTaskGivenToAnIdleLoopRunsWithoutWaitingForAConnection() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        acceptLoop.afterAccepts(group.next()).execute(ran::countDown);
        assertTrue(ran.await(5, TimeUnit.SECONDS), "the task ran");
    }

    @Test
    void aTaskRunsAfterTheConnectionsThatReachedTheServerBeforeItAreAccepted() throws Exception {
        AtomicInteger accepted = new AtomicInteger();
        Channel listener = new ServerBootstrap().group(group, children).channel(NioServerSocketChannel.class)
                .handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object message) {
                        accepted.incrementAndGet();
                        ctx.fireChannelRead(message);
                    }
                })
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel channel) {
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
        int port = ((InetSocketAddress) listener.localAddress()).getPort();

        // Hold the loop in a task, queue connections in the kernel meanwhile, then give the task.
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        listener.eventLoop().execute(() -> {
            holding.countDown();
            awaitQuietly(release);
        });
        assertTrue(holding.await(5, TimeUnit.SECONDS));
        for (int i = 0; i < 5; i++) {
            clients.add(new Socket("127.0.0.1", port));
        }
        AtomicInteger acceptedWhenRun = new AtomicInteger(-1);
        CountDownLatch ran = new CountDownLatch(1);
        acceptLoop.afterAccepts(listener.eventLoop()).execute(() -> {
            acceptedWhenRun.set(accepted.get());
            ran.countDown();
        });
        release.countDown();
        assertTrue(ran.await(5, TimeUnit.SECONDS), "the task ran");
        assertEquals(5, acceptedWhenRun.get(), "the connections queued before the task were accepted before it ran");
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
    }
}
