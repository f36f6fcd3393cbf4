package io.bayeux.server.internal;

import io.bayeux.api.Promise;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.spi.Endpoint;
import io.bayeux.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many threads publish to many sessions at once: every message reaches every subscriber
 * exactly once. Bounded in count; the waits are bounded too.
 */
class ConcurrentPublishStressTest {
    private static final int THREADS = 8;
    private static final int MESSAGES_PER_THREAD = 2_000;
    private static final int SUBSCRIBERS = 50;
    private static final int CHANNELS = 4;

    private BayeuxServerImpl server;

    @AfterEach
    void stop() {
        server.stop();
    }

    @Test
    void concurrentPublishesFromManyThreadsReachEverySubscriberExactlyOnce() throws Exception {
        server = new BayeuxServerImpl(new ManualScheduler().config().executor(Runnable::run).build()).start();
        List<CountingEndpoint> endpoints = new ArrayList<>();
        for (int i = 0; i < SUBSCRIBERS; i++) {
            CountingEndpoint endpoint = new CountingEndpoint();
            TestClient client = new TestClient(server, true);
            client.connected();
            // Half subscribe to every channel through /stress/**, half to each channel by name: once per session either way.
            if (i % 2 == 0) {
                client.subscribe("/stress/**");
            } else {
                for (int c = 0; c < CHANNELS; c++) {
                    client.subscribe(List.of("/stress/" + c, "/stress/*"));
                }
            }
            // From now on the session pushes to a counting endpoint that completes writes asynchronously.
            server.sessionImpl(client.clientId()).outbox().bind((ConnectionImpl) server.newConnection(endpoint));
            endpoints.add(endpoint);
        }
        ExecutorService writers = Executors.newFixedThreadPool(2);
        for (CountingEndpoint endpoint : endpoints) {
            endpoint.completions = writers;
        }
        ExecutorService publishers = Executors.newFixedThreadPool(THREADS);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            futures.add(publishers.submit(() -> {
                go.await();
                for (int m = 0; m < MESSAGES_PER_THREAD; m++) {
                    ServerChannel channel = server.createChannelIfAbsent("/stress/" + ((thread + m) % CHANNELS)).getReference();
                    channel.publish(null, m);
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> future : futures) {
            future.get(60, TimeUnit.SECONDS);
        }
        long expected = (long) THREADS * MESSAGES_PER_THREAD;
        for (CountingEndpoint endpoint : endpoints) {
            Await.until(Duration.ofSeconds(30), () -> endpoint.received.get() >= expected,
                    () -> expected + " messages; received " + endpoint.received.get());
            assertEquals(expected, endpoint.received.get());
            assertTrue(endpoint.maxConcurrentWrites.get() <= 1, "one writer per session");
        }
        publishers.shutdownNow();
        writers.shutdownNow();
    }

    /** Completes writes on another thread, counting messages and checking writes never overlap. */
    private static final class CountingEndpoint implements Endpoint {
        final AtomicLong received = new AtomicLong();
        final AtomicLong inFlight = new AtomicLong();
        final AtomicLong maxConcurrentWrites = new AtomicLong();
        volatile ExecutorService completions;

        @Override
        public String transportName() {
            return "websocket";
        }

        @Override
        public boolean canPush() {
            return true;
        }

        @Override
        public void write(List<ServerMessage> messages, Promise<Void> written) {
            long now = inFlight.incrementAndGet();
            maxConcurrentWrites.accumulateAndGet(now, Math::max);
            received.addAndGet(messages.size());
            ExecutorService executor = completions;
            Runnable done = () -> {
                inFlight.decrementAndGet();
                written.succeed(null);
            };
            if (executor == null) {
                done.run();
            } else {
                executor.execute(done);
            }
        }
    }

}
