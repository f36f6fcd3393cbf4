package io.bayeux.transport;

import io.bayeux.api.Message;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.common.json.JacksonJsonCodec;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.QueueOverflow;
import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.testing.Await;
import io.bayeux.transport.internal.ReadGate;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.netty.util.internal.PlatformDependent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The slow-consumer guarantee over real sockets: a WebSocket client that stops reading costs
 * the server its bounded session queue and the one write in flight, however much is
 * published, the configured overflow policy applies and the application hears of it, while
 * the clients that do read get every message.
 *
 * <p>The stalled client is a raw socket with a 4 KiB receive buffer that speaks WebSocket by
 * hand and never reads after subscribing; the readers are JDK WebSocket clients that only
 * count the messages of each frame. The server runs in this JVM, so its heap is measured
 * directly.
 */
class SlowConsumerIT {
    private static final JacksonJsonCodec JSON = new JacksonJsonCodec();
    private static final String CHANNEL = "/slow/data";
    private static final int MAX_QUEUE = ServerSettings.DEFAULT_MAX_QUEUE;
    private static final int READERS = 50;
    private static final int MESSAGES = 50_000;
    /** The publisher waits when a reader is this many messages behind, far below the readers' own queue bound. */
    private static final int MAX_BEHIND = 500;
    private static final int CHUNK = 100;
    /** Messages per long-polling publish request. */
    private static final int BATCH = 25;
    /** The most the server's memory (heap after GC, plus bytes waiting in its connections' outbound buffers) may grow. */
    private static final long MAX_GROWTH = 25L * 1024 * 1024;
    private static final Duration TIME_LIMIT = Duration.ofSeconds(120);
    /** The most the direct memory outside Netty's pool may grow while a stalled reader holds thousands of 1 KiB messages. */
    private static final long MAX_DIRECT_GROWTH = 8L * 1024 * 1024;
    /** What may stay of it once nothing is left to write (the JDK's own temporary buffers). */
    private static final long DIRECT_SLACK = 2L * 1024 * 1024;
    /** Makes each payload about 1 KiB; the {@code <n>} marker in front is what readers count. */
    private static final String FILLER = "x".repeat(1016);

    private NettyBayeuxServer server;
    private HttpClient http;
    private final List<Reader> readers = new ArrayList<>();
    private StalledClient stalled;

    /**
     * A server whose held connects outlast the test (so the stalled session is neither
     * answered nor expired while it runs) and with the default queue bound.
     */
    private void start(QueueOverflow overflow) {
        start(overflow, MAX_QUEUE);
    }

    private void start(QueueOverflow overflow, int maxQueue) {
        start(overflow, maxQueue, bayeux -> { });
    }

    /** As {@link #start(QueueOverflow, int)}, with {@code bayeux} changing the Bayeux configuration further. */
    private void start(QueueOverflow overflow, int maxQueue, Consumer<BayeuxServerConfig.Builder> bayeux) {
        start(overflow, maxQueue, bayeux, transport -> { });
    }

    /** As {@link #start(QueueOverflow, int, Consumer)}, with {@code transport} changing the server's configuration further. */
    private void start(QueueOverflow overflow, int maxQueue, Consumer<BayeuxServerConfig.Builder> bayeux, Consumer<NettyBayeuxServer.Builder> transport) {
        BayeuxServerConfig.Builder config = BayeuxServerConfig.builder().maxQueue(maxQueue).timeout(Duration.ofSeconds(200));
        bayeux.accept(config);
        NettyBayeuxServer.Builder builder = NettyBayeuxServer.builder().port(0)
                .maxQueue(maxQueue, overflow)
                .bayeuxConfig(config.build())
                .idleTimeout(Duration.ofSeconds(300));
        transport.accept(builder);
        server = builder.build().start();
        server.bayeux().createChannelIfAbsent(CHANNEL);
        http = HttpClient.newHttpClient();
    }

    @AfterEach
    void stop() {
        if (stalled != null) {
            stalled.close();
        }
        for (Reader reader : readers) {
            reader.close();
        }
        if (http != null) {
            http.close();
        }
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void aClientThatStopsReadingCostsABoundedQueueWhileReadersGetEveryMessage() throws Exception {
        start(QueueOverflow.DROP_OLDEST);
        long deadline = System.nanoTime() + TIME_LIMIT.toNanos();
        stalled = new StalledClient(server.uri()).subscribe();
        ServerSession stalledSession = server.bayeux().getSession(stalled.clientId);
        QueueWatch watch = new QueueWatch();
        stalledSession.addListener(watch);
        connectReaders(READERS);
        // A session with a DeQueueListener has its queue taken on the executor: application code never runs on an event loop.
        AtomicInteger deQueues = new AtomicInteger();
        AtomicInteger deQueuesOnEventLoop = new AtomicInteger();
        server.bayeux().getSession(readers.get(0).clientId).addListener((ServerSession.DeQueueListener) (session, queue) -> {
            deQueues.incrementAndGet();
            if (Thread.currentThread() instanceof FastThreadLocalThread) {
                deQueuesOnEventLoop.incrementAndGet();
            }
        });

        Memory baseline = memory();
        long started = System.nanoTime();
        AtomicInteger maxQueueSeen = new AtomicInteger();
        publishPaced(0, MESSAGES, deadline, () -> {
            maxQueueSeen.accumulateAndGet(stalledSession.getQueueSize(), Math::max);
            return false;
        });
        awaitReaders(MESSAGES, deadline);
        long publishedIn = System.nanoTime() - started;
        Memory after = memory();
        long growth = after.total() - baseline.total();
        System.out.printf("SlowConsumerIT: %d readers got %d messages each in %d ms; %s -> %s (%+.1f MB); "
                        + "stalled queue max %d, queue maxed %d times (largest queue seen by the listener %d)%n",
                READERS, MESSAGES, TimeUnit.NANOSECONDS.toMillis(publishedIn), baseline, after, mb(growth),
                maxQueueSeen.get(), watch.calls.get(), watch.largest.get());

        for (Reader reader : readers) {
            assertEquals(MESSAGES, reader.count.get(), "messages received by " + reader.clientId);
            assertEquals((long) MESSAGES * (MESSAGES - 1) / 2, reader.sum.get(), "each message exactly once at " + reader.clientId);
        }
        assertTrue(deQueues.get() > 0, "the reader's queue was taken");
        assertEquals(0, deQueuesOnEventLoop.get(), "DeQueueListener calls on an event loop, of " + deQueues.get());
        assertNotNull(server.bayeux().getSession(stalled.clientId), "the stalled session is still there, its queue included in the measure");
        assertTrue(watch.calls.get() > 0, "the application's QueueMaxedListener was called");
        // The policy's own listener may run first and already have dropped the oldest.
        assertTrue(watch.largest.get() >= MAX_QUEUE - 1 && watch.largest.get() <= MAX_QUEUE,
                "the queue reached, and never passed, its bound: " + watch.largest.get());
        assertTrue(maxQueueSeen.get() <= MAX_QUEUE, "stalled queue " + maxQueueSeen.get() + " > " + MAX_QUEUE);
        assertTrue(stalledSession.getQueueSize() <= MAX_QUEUE);
        assertTrue(growth < MAX_GROWTH, String.format("server memory grew by %.1f MB: %s -> %s", mb(growth), baseline, after));
    }

    /**
     * A reader that stops reading, whose session may queue as many messages as the benchmark
     * server allows (100,000), stops costing memory once it counts as stalled: its queue no
     * longer grows (the oldest go as new ones come, as its policy says, and the application's
     * listener hears of each), while the readers that read get every message.
     */
    @Test
    void aStalledReadersQueueStopsGrowingWhateverItsOwnBound() throws Exception {
        int maxQueue = 100_000;
        int messages = 20_000;
        start(QueueOverflow.DROP_OLDEST, maxQueue, bayeux -> { }, transport -> transport.stallTime(Duration.ofMillis(300)));
        long deadline = System.nanoTime() + TIME_LIMIT.toNanos();
        stalled = new StalledClient(server.uri()).subscribe();
        ServerSession stalledSession = server.bayeux().getSession(stalled.clientId);
        QueueWatch watch = new QueueWatch();
        stalledSession.addListener(watch);
        connectReaders(10);

        // Paced so that the stall is seen long before the end: a few hundred messages each 100 ms at most.
        ServerChannel channel = server.bayeux().getChannel(CHANNEL);
        AtomicInteger queuedMidway = new AtomicInteger();
        for (int i = 0; i < messages; i++) {
            channel.publish(null, payload(i));
            if ((i + 1) % CHUNK == 0) {
                awaitReaders(i + 1, deadline);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
            if (i == messages / 2) {
                queuedMidway.set(stalledSession.getQueueSize());
            }
        }
        awaitReaders(messages, deadline);
        int queued = stalledSession.getQueueSize();
        System.out.printf("SlowConsumerIT: stalled reader's queue %d halfway, %d at the end of %d messages; queue maxed %d times%n",
                queuedMidway.get(), queued, messages, watch.calls.get());

        for (Reader reader : readers) {
            assertEquals(messages, reader.count.get(), "messages received by " + reader.clientId);
            assertEquals((long) messages * (messages - 1) / 2, reader.sum.get(), "each message exactly once at " + reader.clientId);
        }
        assertNotNull(server.bayeux().getSession(stalled.clientId), "the stalled session is still there");
        assertEquals(queuedMidway.get(), queued, "the queue did not grow in the second half");
        assertTrue(queued < messages / 2, "the stalled reader's queue stopped growing: " + queued);
        assertTrue(watch.calls.get() >= messages / 2, "the application heard of each message past the bound: " + watch.calls.get());
    }

    /**
     * A reader that does not read, with a queue bound as large as the benchmark server's, holds
     * thousands of 1 KiB messages while the others read: the messages waiting in its queue hold
     * none of the direct memory their broadcast was written from, and what the frames hold is
     * freed as soon as they are written or their connection closes, without waiting for a
     * garbage collection.
     */
    @Test
    void aStalledReaderWithALargeQueueHoldsNoDirectMemoryForWhatWaitsAndItIsFreedWithoutGarbageCollection() throws Exception {
        int maxQueue = 100_000;
        int messages = 20_000;
        int readerCount = 10;
        ResourceLeakDetector.Level level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
        try {
            // Its queue may grow to its own bound, not only to a stalled reader's.
            start(QueueOverflow.DROP_OLDEST, maxQueue, bayeux -> bayeux.maxStalledQueue(-1));
            long deadline = System.nanoTime() + TIME_LIMIT.toNanos();
            stalled = new StalledClient(server.uri()).subscribe();
            ServerSession stalledSession = server.bayeux().getSession(stalled.clientId);
            connectReaders(readerCount);
            long baseline = settledDirectMemory();
            AtomicLong peak = new AtomicLong(baseline);
            AtomicLong peakShared = new AtomicLong();
            // Each message once the readers have the one before: they read every message in a frame of its own, by reference.
            ServerChannel channel = server.bayeux().getChannel(CHANNEL);
            for (int i = 0; i < messages; i++) {
                channel.publish(null, payload(i));
                awaitReaders(i + 1, deadline);
                peak.accumulateAndGet(directBytes(), Math::max);
                peakShared.accumulateAndGet(server.sharedFrameBytes(), Math::max);
            }
            int queued = stalledSession.getQueueSize();
            long whileStalled = directBytes();
            System.out.printf("SlowConsumerIT: stalled reader holds %d queued messages; direct memory outside the pool %.1f MB before, peak %.1f MB (+%.1f), "
                            + "%.1f MB once delivered; shared frames peak %.1f MB%n",
                    queued, mb(baseline), mb(peak.get()), mb(peak.get() - baseline), mb(whileStalled), mb(peakShared.get()));

            for (Reader reader : readers) {
                assertEquals(messages, reader.count.get(), "messages received by " + reader.clientId);
                assertEquals((long) messages * (messages - 1) / 2, reader.sum.get(), "each message exactly once at " + reader.clientId);
                assertEquals(0, reader.outOfOrder.get(), "messages out of order at " + reader.clientId);
            }
            assertTrue(queued > messages / 2, "the stalled reader holds most messages in its queue: " + queued);
            assertTrue(peak.get() - baseline < MAX_DIRECT_GROWTH, String.format(
                    "direct memory grew by %.1f MB while a stalled reader held %d messages", mb(peak.get() - baseline), queued));

            // The stalled reader goes: what its connection held is freed with it, no garbage collection asked for.
            stalled.close();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while ((server.sharedFrameBytes() > 0 || directBytes() > baseline + DIRECT_SLACK) && System.nanoTime() - until < 0) {
                LockSupport.parkNanos(10_000_000);
            }
            System.out.printf("SlowConsumerIT: after the stalled reader left, direct memory %.1f MB, shared frames %d bytes%n",
                    mb(directBytes()), server.sharedFrameBytes());
            assertEquals(0, server.sharedFrameBytes(), "direct bytes of shared frames once nothing is left to write");
            assertTrue(directBytes() <= baseline + DIRECT_SLACK, String.format(
                    "direct memory %.1f MB, %.1f MB before", mb(directBytes()), mb(baseline)));
        } finally {
            ResourceLeakDetector.setLevel(level);
        }
    }

    @Test
    void withTheDisconnectPolicyTheStalledSessionIsRemovedOnceItsClientIsToldAndTheOthersAreUnaffected() throws Exception {
        start(QueueOverflow.DISCONNECT);
        long deadline = System.nanoTime() + TIME_LIMIT.toNanos();
        stalled = new StalledClient(server.uri()).subscribe();
        ServerSession stalledSession = server.bayeux().getSession(stalled.clientId);
        QueueWatch watch = new QueueWatch();
        stalledSession.addListener(watch);
        AtomicInteger removals = new AtomicInteger();
        CountDownLatch removed = new CountDownLatch(1);
        stalledSession.addListener((ServerSession.RemoveListener) (session, message, timeout) -> {
            removals.incrementAndGet();
            removed.countDown();
        });
        // The client is told why, not sent a /meta/disconnect that could not get past its full queue.
        AtomicInteger disconnects = new AtomicInteger();
        stalledSession.addExtension(new ServerSession.Extension() {
            @Override
            public ServerMessage send(ServerSession session, ServerMessage message) {
                if ("/meta/disconnect".equals(message.getChannel())) {
                    disconnects.incrementAndGet();
                }
                return message;
            }
        });
        connectReaders(READERS);

        // Publish until the stalled session is gone, then as much again: the readers must not notice.
        int published = publishPaced(0, MESSAGES, deadline, () -> server.bayeux().getSession(stalled.clientId) == null);
        int total = 2 * published;
        publishPaced(published, total, deadline, () -> false);
        awaitReaders(total, deadline);
        System.out.printf("SlowConsumerIT: stalled session removed after %d messages, queue maxed %d times; %d readers got %d messages each%n",
                published, watch.calls.get(), READERS, total);

        assertNull(server.bayeux().getSession(stalled.clientId), "the stalled session was removed within " + MESSAGES + " messages");
        // The executor's thread runs the remove listeners after the session left the registry, which is what stopped the publishing.
        assertTrue(removed.await(10, TimeUnit.SECONDS), "remove listeners told");
        assertEquals(1, removals.get(), "removed once");
        assertEquals(0, disconnects.get(), "/meta/disconnect messages sent to the stalled session");
        assertTrue(watch.calls.get() > 0, "the application's QueueMaxedListener was called");
        assertTrue(watch.largest.get() <= MAX_QUEUE, "queue " + watch.largest.get() + " > " + MAX_QUEUE);
        for (Reader reader : readers) {
            assertNotNull(server.bayeux().getSession(reader.clientId), "reader " + reader.clientId + " is still there");
            assertEquals(total, reader.count.get(), "messages received by " + reader.clientId);
            assertEquals((long) total * (total - 1) / 2, reader.sum.get(), "each message exactly once at " + reader.clientId);
        }
    }

    @Test
    void aClientThatKeepsSendingButNeverReadsIsNotAnsweredIntoUnboundedMemory() throws Exception {
        start(QueueOverflow.DROP_OLDEST);
        long deadline = System.nanoTime() + TIME_LIMIT.toNanos();
        stalled = new StalledClient(server.uri()).subscribe();
        ServerSession stalledSession = server.bayeux().getSession(stalled.clientId);
        QueueWatch watch = new QueueWatch();
        stalledSession.addListener(watch);
        connectReaders(READERS);

        Memory baseline = memory();
        // Connects answered at once would each carry the whole queue, written whether or not the client reads.
        String connect = json(message("/meta/connect", stalled.clientId, "connectionType", "websocket", "advice", Map.of("timeout", 0)));
        AtomicInteger sent = new AtomicInteger();
        Thread sender = Thread.ofPlatform().daemon().name("stalled-sender").start(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    stalled.send(connect);
                    sent.incrementAndGet();
                    LockSupport.parkNanos(1_000_000);
                }
            } catch (IOException x) {
                // The socket was closed at the end of the test.
            }
        });
        long started = System.nanoTime();
        publishPaced(0, MESSAGES, deadline, () -> false);
        awaitReaders(MESSAGES, deadline);
        long publishedIn = System.nanoTime() - started;
        Memory after = memory();
        sender.interrupt();
        long growth = after.total() - baseline.total();
        System.out.printf("SlowConsumerIT: stalled client sent %d connects (not waiting for replies); %d readers got %d messages each in %d ms; "
                        + "%s -> %s (%+.1f MB); queue maxed %d times%n",
                sent.get(), READERS, MESSAGES, TimeUnit.NANOSECONDS.toMillis(publishedIn), baseline, after, mb(growth),
                watch.calls.get());

        for (Reader reader : readers) {
            assertEquals(MESSAGES, reader.count.get(), "messages received by " + reader.clientId);
        }
        assertTrue(growth < MAX_GROWTH, String.format("server memory grew by %.1f MB: %s -> %s", mb(growth), baseline, after));
        assertTrue(watch.calls.get() > 0, "the application's QueueMaxedListener was called: the queue waited, it was not answered away");
        assertTrue(watch.largest.get() <= MAX_QUEUE, "queue " + watch.largest.get() + " > " + MAX_QUEUE);
    }

    @Test
    void anOverloadedServerSlowsItsPublishersDownInsteadOfDroppingWhatReadersAreReading() throws Exception {
        // A small queue bound: readers that fall 100 messages behind would lose messages.
        int maxQueue = 200;
        // The readers run in this JVM, on the same two cores as the server and the publishers:
        // they may take seconds to drain what waits for them, and must not count as stalled.
        start(QueueOverflow.DROP_NEWEST, maxQueue);
        long deadline = System.nanoTime() + TIME_LIMIT.toNanos();
        List<QueueWatch> watches = connectWatchedReaders();
        // Two clients publish as fast as their sockets let them, 1 KiB messages to 50 readers:
        // more than the server can deliver. Every reader must get every message all the same.
        int publishers = 2;
        int each = MESSAGES / 4;
        List<Reader> senders = new ArrayList<>();
        for (int p = 0; p < publishers; p++) {
            Reader publisher = new Reader(http, server.uri()).subscribe();
            senders.add(publisher);
        }
        readers.addAll(senders);
        long started = System.nanoTime();
        publishConcurrently("publisher", publishers, each, (p, first, count) -> {
            Reader publisher = senders.get(p);
            for (int i = first; i < first + count; i++) {
                try {
                    publisher.sendWithin(json(message(CHANNEL, publisher.clientId, "data", payload(i))), System.nanoTime() + TimeUnit.SECONDS.toNanos(20));
                } catch (Exception x) {
                    throw new AssertionError("publisher " + publisher.clientId + " held back for 20 s at message " + i + ": " + x
                            + "; connections not read: " + unreadConnections() + " behind=" + ((BayeuxServerImpl) server.bayeux()).isBehind()
                            + " queues=" + server.bayeux().getSessions().stream().map(ss -> ss.getQueueSize()).toList()
                            + " readers=" + readers.stream().map(r -> r.count.get()).toList(), x);
                }
            }
        });
        long sentIn = System.nanoTime() - started;
        int total = publishers * each;
        assertNoOverflowWhilePublishing(watches);
        awaitReaders(total, deadline);
        long deliveredIn = System.nanoTime() - started;
        int overflows = watches.stream().mapToInt(w -> w.calls.get()).sum();
        System.out.printf("SlowConsumerIT: %d publishers sent %d messages in %d ms, %d readers got all of them in %d ms; "
                        + "readers' queues overflowed %d times%n",
                publishers, total, TimeUnit.NANOSECONDS.toMillis(sentIn), READERS, TimeUnit.NANOSECONDS.toMillis(deliveredIn), overflows);

        assertEquals(0, overflows, "readers that keep reading never reach their queue bound: the publishers are slowed down instead");
        assertEveryReaderGotEachOnce(total);
        // Readers that fell behind got frames of many messages referencing shared buffers: all given back once written.
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (server.sharedFrameBytes() > 0 && System.nanoTime() - until < 0) {
            LockSupport.parkNanos(10_000_000);
        }
        assertEquals(0, server.sharedFrameBytes(), "direct bytes of shared frames once everything was written");
    }

    @Test
    void aPublisherThatAnOverloadedServerStopsReadingKeepsItsSession() throws Exception {
        // The server holds the readers' connects for 200 s; the publisher's are answered every
        // 300 ms, and it has 1 s to send the next one (which then waits unread).
        int maxQueue = 40;
        start(QueueOverflow.DROP_NEWEST, maxQueue, bayeux -> bayeux.sweepPeriod(Duration.ofMillis(100)));
        // A reader that reads, but far slower than the publisher sends: the server is behind with it.
        stalled = new StalledClient(server.uri()).subscribe();
        stalled.trickle(2048, 50);

        Reader publisher = new Reader(http, server.uri());
        readers.add(publisher);
        publisher.clientId = (String) publisher.request(message("/meta/handshake", null, "version", "1.0",
                "supportedConnectionTypes", List.of("websocket"))).get("clientId");
        ServerSession session = server.bayeux().getSession(publisher.clientId);
        session.setTimeout(300);
        session.setMaxInterval(1000);
        publisher.request(message("/meta/connect", publisher.clientId, "connectionType", "websocket"));
        publisher.send(json(message("/meta/connect", publisher.clientId, "connectionType", "websocket")));
        // The publisher's client answers each connect reply with the next connect, as a client does.
        AtomicInteger renewed = new AtomicInteger();
        AtomicReference<Exception> renewFailure = new AtomicReference<>();
        Thread renewer = Thread.ofPlatform().daemon().name("renewer").start(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    List<Map<String, Object>> frame = publisher.frames.poll(100, TimeUnit.MILLISECONDS);
                    if (frame != null && successfulReply(frame, "/meta/connect") != null) {
                        // One send at a time on a JDK WebSocket: after the publish being sent, as a client queues it.
                        synchronized (publisher) {
                            publisher.sendWithin(json(message("/meta/connect", publisher.clientId, "connectionType", "websocket")),
                                    System.nanoTime() + TimeUnit.SECONDS.toNanos(60));
                        }
                        renewed.incrementAndGet();
                    }
                }
            } catch (InterruptedException x) {
                // The end of the test.
            } catch (Exception x) {
                renewFailure.set(x);
            }
        });

        // Publishes as fast as TCP lets it for 4 s (much longer than the session's max interval),
        // and on until the server was seen behind (20 s at most). A watcher looks, not the
        // publisher: its sends go through when the server reads again, that is when it caught up.
        long start = System.nanoTime();
        long end = start + TimeUnit.SECONDS.toNanos(4);
        long limit = start + TimeUnit.SECONDS.toNanos(20);
        AtomicBoolean wasBehind = new AtomicBoolean();
        Thread watcher = Thread.ofPlatform().daemon().name("behind-watcher").start(() -> {
            while (!wasBehind.get() && System.nanoTime() - limit < 0) {
                wasBehind.set(((BayeuxServerImpl) server.bayeux()).isBehind());
                LockSupport.parkNanos(200_000);
            }
        });
        int sent = 0;
        try {
            while (System.nanoTime() - end < 0 || (!wasBehind.get() && System.nanoTime() - limit < 0)) {
                synchronized (publisher) {
                    publisher.sendWithin(json(message(CHANNEL, publisher.clientId, "data", payload(sent))), limit + TimeUnit.SECONDS.toNanos(30));
                }
                sent++;
                assertNotNull(server.bayeux().getSession(publisher.clientId), "the publisher's session expired after " + sent
                        + " messages, " + renewed.get() + " connects, " + renewFailure.get());
            }
            watcher.join(TimeUnit.SECONDS.toMillis(20));
            assertTrue(wasBehind.get(), "the server fell behind with the slow reader (" + sent + " messages sent)");
            long heldUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (((BayeuxServerImpl) server.bayeux()).isBehind() && System.nanoTime() - heldUntil < 0) {
                assertNotNull(server.bayeux().getSession(publisher.clientId), "the publisher's session expired while held back");
                Thread.sleep(50);
            }
        } finally {
            // The slow reader goes: the server catches up and reads the publisher again.
            stalled.close();
            stalled = null;
        }
        Await.until(Duration.ofSeconds(20), () -> !((BayeuxServerImpl) server.bayeux()).isBehind(), () -> "the server to catch up");
        int renewedBefore = renewed.get();
        // Once read again, its waiting connect is handled and it goes on connecting.
        try {
            Await.until(Duration.ofSeconds(20), () -> renewed.get() >= renewedBefore + 2 || renewFailure.get() != null,
                    () -> "the publisher to connect again once read: " + renewed.get() + " connects");
        } finally {
            renewer.interrupt();
        }
        assertNull(renewFailure.get(), "the client's connects");
        assertNotNull(server.bayeux().getSession(publisher.clientId), "the publisher's session after the overload");
    }

    @Test
    void anOverloadedServerHoldsLongPollingPublishesInsteadOfDroppingWhatReadersAreReading() throws Exception {
        int maxQueue = 200;
        start(QueueOverflow.DROP_NEWEST, maxQueue);
        long deadline = System.nanoTime() + TIME_LIMIT.toNanos();
        List<QueueWatch> watches = connectWatchedReaders();
        // Four long-polling clients publish 1 KiB messages in batches of 25, back to back, each
        // waiting only for its previous batch's answer: more than the server can deliver to 50 readers.
        int publishers = 4;
        int each = MESSAGES / 10;
        long started = System.nanoTime();
        publishConcurrently("lp-publisher", publishers, each, (p, first, count) -> {
            try (HttpClient client = HttpClient.newBuilder().cookieHandler(new java.net.CookieManager()).build()) {
                String clientId = (String) postForReply(client, message("/meta/handshake", null, "version", "1.0",
                        "supportedConnectionTypes", List.of("long-polling")), "/meta/handshake").get("clientId");
                for (int i = first; i < first + count; i += BATCH) {
                    List<Map<String, Object>> batch = new ArrayList<>();
                    for (int j = i; j < Math.min(i + BATCH, first + count); j++) {
                        batch.add(message(CHANNEL, clientId, "data", payload(j)));
                    }
                    postForReply(client, batch, CHANNEL);
                }
            }
        });
        int total = publishers * each;
        assertNoOverflowWhilePublishing(watches);
        awaitReaders(total, deadline);
        System.out.printf("SlowConsumerIT: %d long-polling publishers sent %d messages, %d readers got all of them in %d ms%n",
                publishers, total, READERS, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        assertEveryReaderGotEachOnce(total);
    }

    /** Connects {@value #READERS} readers and watches each one's queue for overflows. */
    private List<QueueWatch> connectWatchedReaders() throws Exception {
        connectReaders(READERS);
        List<QueueWatch> watches = new ArrayList<>();
        for (Reader reader : readers) {
            QueueWatch watch = new QueueWatch();
            server.bayeux().getSession(reader.clientId).addListener(watch);
            watches.add(watch);
        }
        return watches;
    }

    /** What one publishing thread does: publish messages {@code first} to {@code first + count - 1}. */
    private interface Publishing {
        void publish(int publisher, int first, int count) throws Exception;
    }

    /**
     * Runs {@code publishers} threads named {@code name-<n>}, thread n publishing messages
     * {@code n * each} to {@code (n + 1) * each - 1}; waits for them (each at most the time
     * limit) and fails with what any of them threw.
     */
    private static void publishConcurrently(String name, int publishers, int each, Publishing publishing) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int p = 0; p < publishers; p++) {
            int publisher = p;
            threads.add(Thread.ofPlatform().name(name + "-" + p).start(() -> {
                try {
                    publishing.publish(publisher, publisher * each, each);
                } catch (Exception | AssertionError x) {
                    failures.add(Thread.currentThread().getName() + ": " + x);
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join(TIME_LIMIT.toMillis());
        }
        assertEquals(List.of(), failures);
    }

    private void assertNoOverflowWhilePublishing(List<QueueWatch> watches) {
        int overflowsSent = watches.stream().mapToInt(w -> w.calls.get()).sum();
        assertEquals(0, overflowsSent, "overflows while publishing; readers at " + readers.stream().map(r -> r.count.get()).toList());
    }

    /** Every reader counted {@code total} messages, numbered 0 to {@code total - 1}, each once. */
    private void assertEveryReaderGotEachOnce(int total) {
        for (Reader reader : readers) {
            assertEquals(total, reader.count.get(), "messages received by " + reader.clientId);
            assertEquals((long) total * (total - 1) / 2, reader.sum.get(), "each message exactly once at " + reader.clientId);
        }
    }

    /** POSTs one message over long-polling; returns its successful reply. */
    private Map<String, Object> postForReply(HttpClient client, Map<String, Object> message, String channel) throws Exception {
        return postForReply(client, List.of(message), channel);
    }

    /** POSTs a batch over long-polling; returns the first successful reply on {@code channel}. */
    private Map<String, Object> postForReply(HttpClient client, List<Map<String, Object>> batch, String channel) throws Exception {
        String body;
        try {
            body = new String(JSON.write(batch), StandardCharsets.UTF_8);
        } catch (Exception x) {
            throw new AssertionError(x);
        }
        java.net.http.HttpRequest request = java.net.http.HttpRequest.newBuilder(server.uri()).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build();
        java.net.http.HttpResponse<String> response = client.send(request, java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        Map<String, Object> reply = successfulReply(parse(response.body()), channel);
        assertNotNull(reply, "a successful reply on " + channel + " in " + response.body());
        return reply;
    }

    /** The server's connections it does not read, with why: for failure messages. */
    private List<String> unreadConnections() {
        List<String> unread = new ArrayList<>();
        for (Channel c : server.channels()) {
            if (!c.config().isAutoRead()) {
                unread.add(c + (ReadGate.isPaused(c, ReadGate.BACKLOG) ? " backlog" : "")
                        + (ReadGate.isPaused(c, ReadGate.UNWRITABLE) ? " unwritable" : "")
                        + (ReadGate.isPaused(c, ReadGate.OVERLOAD) ? " overload" : ""));
            }
        }
        return unread;
    }

    /** Records the application's view of the stalled session's overflow; never vetoes the policy. */
    private static final class QueueWatch implements ServerSession.QueueMaxedListener {
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger largest = new AtomicInteger();

        @Override
        public boolean queueMaxed(ServerSession session, Queue<ServerMessage> queue, ServerSession sender, Message message) {
            calls.incrementAndGet();
            largest.accumulateAndGet(queue.size(), Math::max);
            return true;
        }
    }

    private void connectReaders(int count) throws Exception {
        for (int i = 0; i < count; i++) {
            readers.add(new Reader(http, server.uri()).subscribe());
        }
    }

    /**
     * Publishes messages {@code from} (inclusive) to {@code to} (exclusive), pausing whenever
     * a reader falls {@value #MAX_BEHIND} behind, and stopping early after a message when
     * {@code stopAfter} says so.
     *
     * @return the number of the next message to publish
     */
    private int publishPaced(int from, int to, long deadline, BooleanSupplier stopAfter) {
        ServerChannel channel = server.bayeux().getChannel(CHANNEL);
        for (int i = from; i < to; i++) {
            channel.publish(null, payload(i));
            if (stopAfter.getAsBoolean()) {
                return i + 1;
            }
            if ((i + 1) % CHUNK == 0) {
                awaitReaders(i + 1 - MAX_BEHIND, deadline);
            }
        }
        return to;
    }

    private static String payload(int n) {
        return "<" + n + ">" + FILLER;
    }

    /** Waits until every reader counted at least {@code target} messages; fails past the deadline. */
    private void awaitReaders(long target, long deadline) {
        for (Reader reader : readers) {
            while (reader.count.get() < target) {
                if (System.nanoTime() - deadline > 0) {
                    List<Long> counts = readers.stream().map(r -> r.count.get()).toList();
                    fail("Readers not at " + target + " messages within " + TIME_LIMIT + ": " + counts);
                }
                LockSupport.parkNanos(200_000);
            }
        }
    }

    private static long usedHeapAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    /**
     * The server's memory as far as slow consumers go: the heap after GC (session queues, the
     * JSON cached by queued messages) and the bytes written to its connections that the network
     * has not taken yet (Netty copies them to direct buffers, which the heap does not show).
     */
    private Memory memory() {
        return new Memory(usedHeapAfterGc(), pendingOutboundBytes(), directMemory());
    }

    /** @param direct informative only: pools keep what they once allocated */
    private record Memory(long heap, long pendingOutbound, long direct) {
        long total() {
            return heap + pendingOutbound;
        }

        @Override
        public String toString() {
            return String.format("[heap after GC %.1f MB, pending outbound %.1f MB, direct %.1f MB]", mb(heap), mb(pendingOutbound), mb(direct));
        }
    }

    /** The bytes written to the server's connections that the network has not taken yet, all connections together. */
    private long pendingOutboundBytes() {
        long total = 0;
        for (Channel channel : server.channels()) {
            ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
            if (buffer != null) {
                total += buffer.totalPendingWriteBytes();
            }
        }
        return total;
    }

    /** The direct memory in use by Netty's default allocator and by the JDK's direct buffers. */
    private static long directMemory() {
        long total = 0;
        if (ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider provider) {
            total += provider.metric().usedDirectMemory();
        }
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if ("direct".equals(pool.getName())) {
                total += pool.getMemoryUsed();
            }
        }
        return total;
    }

    /**
     * The direct memory the process holds now outside Netty's default pool, without a garbage
     * collection: the JDK's direct buffers (and what Netty allocates without the JDK's
     * accounting, if it does) less the pool's own. Where a broadcast's shared bytes live, before
     * (buffers freed by the garbage collector) and after (buffers freed by their last write).
     * The pool itself (frames of several messages, reads) keeps what it once allocated.
     */
    private static long directBytes() {
        long total = Math.max(0, PlatformDependent.usedDirectMemory());
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if ("direct".equals(pool.getName())) {
                total += pool.getMemoryUsed();
            }
        }
        if (ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider provider) {
            total -= provider.metric().usedDirectMemory();
        }
        return total;
    }

    /** The direct memory once what earlier work left for the garbage collector is gone: the baseline. */
    private static long settledDirectMemory() {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            LockSupport.parkNanos(50_000_000);
            least = Math.min(least, directBytes());
        }
        return least;
    }

    private static double mb(long bytes) {
        return bytes / (1024.0 * 1024.0);
    }

    private static Map<String, Object> message(String channel, String clientId, Object... fields) {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("channel", channel);
        if (clientId != null) {
            message.put("clientId", clientId);
        }
        for (int i = 0; i < fields.length; i += 2) {
            message.put((String) fields[i], fields[i + 1]);
        }
        return message;
    }

    private static String json(Map<String, Object> message) {
        try {
            return new String(JSON.write(List.of(message)), StandardCharsets.UTF_8);
        } catch (Exception x) {
            throw new AssertionError(x);
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> parse(String json) {
        try {
            return (List<Map<String, Object>>) JSON.parse(json.getBytes(StandardCharsets.UTF_8));
        } catch (Exception x) {
            throw new AssertionError("Invalid JSON: " + json, x);
        }
    }

    private static Map<String, Object> successfulReply(List<Map<String, Object>> messages, String channel) {
        for (Map<String, Object> message : messages) {
            if (channel.equals(message.get("channel")) && message.containsKey("successful")) {
                assertEquals(true, message.get("successful"), "reply " + message);
                return message;
            }
        }
        return null;
    }

    /** The Bayeux conversation every client has before the publishing starts. */
    private abstract static class Client implements AutoCloseable {
        String clientId;

        abstract void send(String json) throws Exception;

        /** The messages of the next frame, waiting at most 10 s. */
        abstract List<Map<String, Object>> nextFrame() throws Exception;

        Map<String, Object> request(Map<String, Object> message) throws Exception {
            send(json(message));
            String channel = (String) message.get("channel");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() - deadline < 0) {
                Map<String, Object> reply = successfulReply(nextFrame(), channel);
                if (reply != null) {
                    return reply;
                }
            }
            throw new AssertionError("No reply on " + channel + " within 10 s");
        }

        /** Handshakes, connects, subscribes, then sends the connect the server holds. */
        void setUp() throws Exception {
            clientId = (String) request(message("/meta/handshake", null, "version", "1.0",
                    "supportedConnectionTypes", List.of("websocket"))).get("clientId");
            request(message("/meta/connect", clientId, "connectionType", "websocket"));
            request(message("/meta/subscribe", clientId, "subscription", CHANNEL));
            send(json(message("/meta/connect", clientId, "connectionType", "websocket")));
        }
    }

    /**
     * A JDK WebSocket client that, once subscribed, only counts the {@code <n>} markers of the
     * frames it receives, and sums their numbers.
     */
    private static final class Reader extends Client implements WebSocket.Listener {
        final AtomicLong count = new AtomicLong();
        final AtomicLong sum = new AtomicLong();
        /** Messages whose number was not greater than the one before. */
        final AtomicLong outOfOrder = new AtomicLong();
        /** The number of the last message counted; only touched by the listener's thread. */
        private long last = -1;
        private final BlockingQueue<List<Map<String, Object>>> frames = new LinkedBlockingQueue<>();
        private final StringBuilder text = new StringBuilder();
        private final WebSocket socket;
        private volatile boolean counting;
        /** The number being read after a {@code <}, or -1. Only touched by the listener's thread. */
        private long number = -1;

        Reader(HttpClient http, URI uri) throws Exception {
            socket = http.newWebSocketBuilder().buildAsync(URI.create(uri.toString().replaceFirst("^http", "ws")), this)
                    .get(5, TimeUnit.SECONDS);
        }

        Reader subscribe() throws Exception {
            setUp();
            counting = true;
            return this;
        }

        @Override
        void send(String json) throws Exception {
            socket.sendText(json, true).get(5, TimeUnit.SECONDS);
        }

        /** Sends, waiting for the socket as long as the test may last: TCP may hold the sender back. */
        void sendWithin(String json, long deadline) throws Exception {
            socket.sendText(json, true).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }

        @Override
        List<Map<String, Object>> nextFrame() throws InterruptedException {
            List<Map<String, Object>> frame = frames.poll(10, TimeUnit.SECONDS);
            if (frame == null) {
                throw new AssertionError("No frame within 10 s");
            }
            return frame;
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            if (counting) {
                count(data);
            } else {
                text.append(data);
                if (last) {
                    frames.add(parse(text.toString()));
                    text.setLength(0);
                }
            }
            webSocket.request(1);
            return null;
        }

        private void count(CharSequence data) {
            long n = number;
            long messages = 0;
            long total = 0;
            for (int i = 0, length = data.length(); i < length; i++) {
                char c = data.charAt(i);
                if (n >= 0) {
                    if (c >= '0' && c <= '9') {
                        n = n * 10 + (c - '0');
                    } else {
                        if (c == '>') {
                            messages++;
                            total += n;
                            if (n <= last) {
                                outOfOrder.incrementAndGet();
                            }
                            last = n;
                        }
                        n = -1;
                    }
                } else if (c == '<') {
                    n = 0;
                }
            }
            number = n;
            sum.addAndGet(total);
            count.addAndGet(messages);
        }

        @Override
        public void close() {
            socket.abort();
        }
    }

    /**
     * A client on a raw socket with a 4 KiB receive buffer: upgrades to WebSocket and speaks
     * Bayeux in masked text frames by hand, then stops reading for good.
     */
    private static final class StalledClient extends Client {
        private final RawWebSocket socket;

        StalledClient(URI uri) throws Exception {
            socket = RawWebSocket.open(uri.getPort(), uri.getPath(), List.of(), 4096);
            socket.socket().setSoTimeout(10_000);
        }

        StalledClient subscribe() throws Exception {
            setUp();
            return this;
        }

        @Override
        void send(String json) throws IOException {
            socket.sendText(json);
        }

        @Override
        List<Map<String, Object>> nextFrame() throws IOException {
            while (true) {
                RawWebSocket.Frame frame = socket.read();
                if (frame.opcode() == RawWebSocket.CLOSE) {
                    throw new AssertionError("The server closed the WebSocket");
                }
                if (frame.opcode() == RawWebSocket.TEXT && frame.fin()) {
                    return parse(frame.text());
                }
            }
        }

        /**
         * From now on reads a little, slowly ({@code bytes} every {@code pauseMillis}), until
         * closed: a reader that keeps reading, but slower than it is sent to.
         */
        void trickle(int bytes, long pauseMillis) throws IOException {
            InputStream in = socket.socket().getInputStream();
            Thread.ofPlatform().daemon().name("trickle").start(() -> {
                byte[] buffer = new byte[bytes];
                try {
                    while (in.read(buffer) >= 0) {
                        Thread.sleep(pauseMillis);
                    }
                } catch (IOException | InterruptedException x) {
                    // Closed by the test.
                }
            });
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // Closing a test socket.
            }
        }
    }
}
