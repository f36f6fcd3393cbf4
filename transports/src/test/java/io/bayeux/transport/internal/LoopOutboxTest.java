package io.bayeux.transport.internal;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Writes handed to a loop from another thread: done in one round, each channel flushed once, a few channels at a time. */
class LoopOutboxTest {
    private static final int CHANNELS = 300;

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
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

    /** Counts, on the children's one loop, the channels written to and not flushed yet, and the most there were. */
    private static final class Unflushed {
        int now;
        int most;
        int writes;
        int flushes;
    }

    @Test
    void aRoundThatWritesToManyChannelsFlushesThemAFewAtATimeAndEachOnce() throws Exception {
        Unflushed unflushed = new Unflushed();
        List<Channel> accepted = new CopyOnWriteArrayList<>();
        CountDownLatch allAccepted = new CountDownLatch(CHANNELS);
        Channel listener = new ServerBootstrap().group(group, children).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel channel) {
                        channel.pipeline().addLast(new ChannelOutboundHandlerAdapter() {
                            private boolean pending;

                            @Override
                            public void write(ChannelHandlerContext ctx, Object message, ChannelPromise promise) {
                                unflushed.writes++;
                                if (!pending) {
                                    pending = true;
                                    unflushed.most = Math.max(unflushed.most, ++unflushed.now);
                                }
                                ctx.write(message, promise);
                            }

                            @Override
                            public void flush(ChannelHandlerContext ctx) {
                                unflushed.flushes++;
                                if (pending) {
                                    pending = false;
                                    unflushed.now--;
                                }
                                ctx.flush();
                            }
                        });
                        accepted.add(channel);
                        allAccepted.countDown();
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
        int port = ((InetSocketAddress) listener.localAddress()).getPort();
        for (int i = 0; i < CHANNELS; i++) {
            Socket client = new Socket("127.0.0.1", port);
            client.setSoTimeout(10_000);
            clients.add(client);
        }
        assertTrue(allAccepted.await(10, TimeUnit.SECONDS), "all accepted");

        // The loop is held while every write is handed to it, so that they all go in one round.
        LoopOutbox outbox = new LoopOutbox.Registry().of(accepted.get(0));
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        accepted.get(0).eventLoop().execute(() -> {
            holding.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(holding.await(5, TimeUnit.SECONDS));
        for (Channel channel : accepted) {
            outbox.write(channel, () -> channel.write(Unpooled.wrappedBuffer(new byte[] {42})));
        }
        release.countDown();

        for (Socket client : clients) {
            InputStream in = client.getInputStream();
            assertEquals(42, in.read(), "each client gets its byte");
        }
        CountDownLatch counted = new CountDownLatch(1);
        int[] figures = new int[3];
        accepted.get(0).eventLoop().execute(() -> {
            figures[0] = unflushed.writes;
            figures[1] = unflushed.flushes;
            figures[2] = unflushed.most;
            counted.countDown();
        });
        assertTrue(counted.await(5, TimeUnit.SECONDS));
        assertEquals(CHANNELS, figures[0], "one write per channel");
        assertEquals(CHANNELS, figures[1], "one flush per channel");
        assertTrue(figures[2] <= LoopOutbox.FLUSH_EVERY, "written and waiting for their flush at most " + LoopOutbox.FLUSH_EVERY + " channels at a time, not " + figures[2]);
    }
}
