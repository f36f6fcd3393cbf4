package io.bayeux.load;

import io.bayeux.api.Message;
import io.bayeux.client.transport.ClientTransport;
import io.bayeux.client.transport.CookieJar;
import io.bayeux.common.HashMapMessage;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --cut-for}'s transport: cut, it drops its connections and fails every send until the cut is over. */
class CuttableTransportTest {
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final Recording delegate = new Recording();
    private final BlockingQueue<Throwable> failures = new LinkedBlockingQueue<>();
    private final BlockingQueue<List<Message.Mutable>> failed = new LinkedBlockingQueue<>();
    private final CuttableTransport transport = new CuttableTransport(delegate, now::get);

    @AfterEach
    void stop() {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
    }

    private void init() {
        transport.init(URI.create("http://127.0.0.1:1/cometd"), null, group, new ClientTransport.Listener() {
            @Override
            public void onMessages(List<Message.Mutable> messages) {
            }

            @Override
            public void onFailure(Throwable failure, List<Message.Mutable> messages) {
                failures.add(failure);
                failed.add(messages);
            }
        });
    }

    @Test
    void uncutItSendsThroughTheTransportItWraps() {
        init();
        List<Message.Mutable> batch = List.of(new HashMapMessage());
        transport.send(batch);
        assertFalse(transport.isCut());
        assertEquals(List.of(batch), delegate.sent);
        assertEquals(0, delegate.aborts);
        assertTrue(failures.isEmpty());
    }

    @Test
    void cutItAbortsAndFailsEverySendUntilTheCutIsOver() throws Exception {
        init();
        transport.cut(Duration.ofSeconds(5));
        assertTrue(transport.isCut());
        assertEquals(1, delegate.aborts, "the connections are dropped");

        List<Message.Mutable> batch = List.of(new HashMapMessage());
        transport.send(batch);
        Throwable failure = failures.poll(10, TimeUnit.SECONDS);
        assertNotNull(failure, "the send failed, on an event loop");
        assertInstanceOf(IOException.class, failure, "a network failure, not an unusable transport");
        assertSame(batch, failed.poll(10, TimeUnit.SECONDS));
        assertTrue(delegate.sent.isEmpty(), "nothing reached the wrapped transport");

        now.addAndGet(Duration.ofMillis(4999).toNanos());
        assertTrue(transport.isCut());
        now.addAndGet(Duration.ofMillis(1).toNanos());
        assertFalse(transport.isCut(), "the cut is over");
        transport.send(batch);
        assertEquals(List.of(batch), delegate.sent);
    }

    /** Records what it is asked to do. */
    private static final class Recording implements ClientTransport {
        final List<List<Message.Mutable>> sent = new ArrayList<>();
        int aborts;

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public void init(URI url, CookieJar cookies, EventLoopGroup group, Listener listener) {
        }

        @Override
        public void send(List<Message.Mutable> messages) {
            sent.add(messages);
        }

        @Override
        public void abort() {
            aborts++;
        }

        @Override
        public void terminate() {
        }
    }
}
