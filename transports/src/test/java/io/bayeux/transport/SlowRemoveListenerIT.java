package io.bayeux.transport;

import io.bayeux.api.server.ServerSession;
import io.bayeux.server.BayeuxServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One application {@code RemoveListener} that blocks (here until the test ends, at most 30 s:
 * longer than the 5 s of the issue, so that a loaded machine cannot make the test pass or fail
 * by the listener returning) while its session expires holds up nothing else: other sessions'
 * held connects (timeout 1 s) are answered, lazy messages (500 ms) are delivered, each within
 * 3 s, and other sessions expire within 4 s of their last connect (max interval 1 s).
 */
class SlowRemoveListenerIT {
    private static final long BLOCK_MILLIS = 30_000;
    private static final long BOUND_MILLIS = 3_000;
    private static final long EXPIRY_BOUND_MILLIS = 4_000;
    private static final long WAIT_SECONDS = 10;
    private final CountDownLatch release = new CountDownLatch(1);
    private final List<RawClient> clients = new ArrayList<>();
    private NettyBayeuxServer server;

    @AfterEach
    void stop() {
        release.countDown();
        if (server != null) {
            server.stop();
        }
        clients.forEach(RawClient::close);
    }

    @ParameterizedTest(name = "{0}, virtual threads {1}")
    @CsvSource({"true,false", "false,false", "true,true"})
    void aBlockingRemoveListenerDelaysNoOtherHeldConnectLazyDeliveryOrExpiry(boolean websocket, boolean virtualThreads) throws Exception {
        NettyBayeuxServer.Builder builder = NettyBayeuxServer.builder().port(0)
                .bayeuxConfig(BayeuxServerConfig.builder()
                        .timeout(Duration.ofSeconds(1))
                        .maxInterval(Duration.ofSeconds(1))
                        .sweepPeriod(Duration.ofMillis(100))
                        .maxLazyTimeout(Duration.ofMillis(500))
                        .build());
        if (virtualThreads) {
            builder.virtualThreads();
        }
        server = builder.build().start();
        server.bayeux().createChannelIfAbsent("/lazy", channel -> channel.setLazy(true));

        // The victim: handshakes, connects once, goes silent; its expiry blocks in the application's listener.
        CountDownLatch blocking = new CountDownLatch(1);
        CountDownLatch returned = new CountDownLatch(1);
        RawClient victim = client(false);
        victim.handshake();
        victim.connect();
        server.bayeux().getSession(victim.clientId()).addListener((ServerSession.RemoveListener) (session, message, timeout) -> {
            blocking.countDown();
            try {
                release.await(BLOCK_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            } finally {
                returned.countDown();
            }
        });
        assertTrue(blocking.await(WAIT_SECONDS, TimeUnit.SECONDS), "the victim expired");

        // Another session that goes silent now expires while the listener blocks.
        RawClient silent = client(false);
        silent.handshake();
        silent.connect();
        long silentSince = System.nanoTime();
        CompletableFuture<Long> expired = new CompletableFuture<>();
        server.bayeux().getSession(silent.clientId()).addListener((ServerSession.RemoveListener) (session, message, timeout) ->
                expired.complete(elapsedSince(silentSince)));

        // A held connect with a 1 s timeout is answered.
        RawClient holder = client(websocket);
        holder.handshake();
        holder.connect();
        CompletableFuture<Long> answered = CompletableFuture.supplyAsync(() -> {
            try {
                long sent = System.nanoTime();
                Map<String, Object> reply = RawClient.reply(holder.connect(), "/meta/connect");
                assertEquals(true, reply.get("successful"));
                return elapsedSince(sent);
            } catch (Exception x) {
                throw new IllegalStateException(x);
            }
        });

        // A lazy message is delivered after its 500 ms.
        RawClient subscriber = client(websocket);
        subscriber.handshake();
        subscriber.connect();
        RawClient.reply(subscriber.send(Map.of("channel", "/meta/subscribe", "subscription", "/lazy")), "/meta/subscribe");
        long[] published = new long[1];
        CountDownLatch publishing = new CountDownLatch(1);
        CompletableFuture<Long> delivered = CompletableFuture.supplyAsync(() -> {
            try {
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BLOCK_MILLIS);
                while (System.nanoTime() < deadline) {
                    for (Map<String, Object> message : subscriber.connect()) {
                        if ("/lazy".equals(message.get("channel")) && message.containsKey("data")) {
                            publishing.await(WAIT_SECONDS, TimeUnit.SECONDS);
                            return elapsedSince(published[0]);
                        }
                    }
                }
                throw new IllegalStateException("no lazy delivery");
            } catch (Exception x) {
                throw new IllegalStateException(x);
            }
        });
        RawClient publisher = client(false);
        publisher.handshake();
        published[0] = System.nanoTime();
        publishing.countDown();
        publisher.send(Map.of("channel", "/lazy", "data", "zzz"));

        long heldMillis = answered.get(WAIT_SECONDS, TimeUnit.SECONDS);
        long lazyMillis = delivered.get(WAIT_SECONDS, TimeUnit.SECONDS);
        long expiryMillis = expired.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(1, returned.getCount(), "the victim's listener still blocks");
        assertTrue(heldMillis < BOUND_MILLIS, "held connect (timeout 1 s) answered after " + heldMillis + " ms");
        assertTrue(lazyMillis < BOUND_MILLIS, "lazy message (500 ms) delivered after " + lazyMillis + " ms");
        assertTrue(expiryMillis < EXPIRY_BOUND_MILLIS, "other session (max interval 1 s) expired after " + expiryMillis + " ms");
    }

    private RawClient client(boolean websocket) throws Exception {
        RawClient client = new RawClient(server.uri(), websocket).open();
        clients.add(client);
        return client;
    }

    private static long elapsedSince(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
}
