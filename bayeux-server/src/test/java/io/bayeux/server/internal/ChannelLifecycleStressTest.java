package io.bayeux.server.internal;

import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.BayeuxServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many threads create, configure and subscribe to a few channels while the sweeper runs every
 * millisecond and removes each of them as soon as it is idle: nothing added is ever lost with
 * a swept channel. Bounded in iterations and in time.
 */
class ChannelLifecycleStressTest {
    private static final int THREADS = 6;
    private static final int ITERATIONS = 3_000;
    private static final int CHANNELS = 4;
    private BayeuxServerImpl server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void noListenerAuthorizerOrSubscriptionIsLostToTheSweeper() throws Exception {
        server = new BayeuxServerImpl(BayeuxServerConfig.builder().sweepPeriod(Duration.ofMillis(1)).build()).start();
        List<ServerSessionImpl> sessions = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            io.bayeux.api.server.LocalSession local = server.newLocalSession("stress");
            local.handshake();
            sessions.add((ServerSessionImpl) local.getServerSession());
        }
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            CyclicBarrier barrier = new CyclicBarrier(THREADS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                ServerSessionImpl session = sessions.get(t);
                results.add(pool.submit(() -> {
                    barrier.await(10, TimeUnit.SECONDS);
                    int done = 0;
                    for (int i = 0; i < ITERATIONS && System.nanoTime() < deadline; i++, done++) {
                        String name = "/stress/" + ThreadLocalRandom.current().nextInt(CHANNELS);
                        ServerChannel channel = server.createChannelIfAbsent(name).getReference();
                        if (ThreadLocalRandom.current().nextBoolean()) {
                            Thread.yield(); // gives the sweeper a chance to remove the channel we hold
                        }
                        switch (i % 3) {
                            case 0 -> {
                                ServerChannel.MessageListener listener = (from, c, m) -> true;
                                channel.addListener(listener);
                                ServerChannel live = live(name);
                                assertTrue(live.getListeners().contains(listener), "listener lost on " + name + " at " + i);
                                live.removeListener(listener);
                            }
                            case 1 -> {
                                io.bayeux.api.server.Authorizer authorizer = (operation, channelId, s, message) ->
                                        io.bayeux.api.server.Authorizer.Result.ignore();
                                channel.addAuthorizer(authorizer);
                                ServerChannel live = live(name);
                                assertTrue(live.getAuthorizers().contains(authorizer), "authorizer lost on " + name + " at " + i);
                                live.removeAuthorizer(authorizer);
                            }
                            default -> {
                                channel.subscribe(session);
                                ServerChannel live = live(name);
                                assertTrue(live.getSubscribers().contains(session), "subscription lost on " + name + " at " + i);
                                assertTrue(session.getSubscriptions().contains(live), "the session knows its channel " + name);
                                live.unsubscribe(session);
                            }
                        }
                    }
                    return done;
                }));
            }
            int total = 0;
            for (Future<Integer> result : results) {
                total += result.get(90, TimeUnit.SECONDS);
            }
            assertTrue(total > THREADS * 100, "the test ran: " + total + " iterations");
        } finally {
            pool.shutdownNow();
        }
    }

    private ServerChannel live(String name) {
        ServerChannel channel = server.getChannel(name);
        assertNotNull(channel, name + " vanished while something was added to it");
        return channel;
    }
}
