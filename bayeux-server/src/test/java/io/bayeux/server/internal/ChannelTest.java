package io.bayeux.server.internal;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ConfigurableServerChannel;
import io.bayeux.api.server.MarkedReference;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static io.bayeux.server.internal.Deliveries.channels;
import static io.bayeux.server.internal.Deliveries.data;
import static io.bayeux.server.internal.Deliveries.drain;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Server channels: creation, sweeping, laziness, listeners, wildcard routing, service channels, broadcast to the publisher. */
class ChannelTest {
    private static final long SWEEP_PERIOD = BayeuxServerConfig.DEFAULT_SWEEP_PERIOD.toMillis();
    private static final long MAX_LAZY_TIMEOUT = BayeuxServerConfig.DEFAULT_MAX_LAZY_TIMEOUT.toMillis();

    private final ManualScheduler scheduler = new ManualScheduler();
    private BayeuxServerImpl server;

    private BayeuxServerImpl start() {
        return start(builder -> {
        });
    }

    private BayeuxServerImpl start(Consumer<BayeuxServerConfig.Builder> configuration) {
        BayeuxServerConfig.Builder builder = scheduler.config().executor(Runnable::run);
        configuration.accept(builder);
        server = new BayeuxServerImpl(builder.build()).start();
        return server;
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    // --- creation

    @Test
    void createChannelIfAbsentConfiguresTheChannelBeforeAnyPublisherSeesIt() throws Exception {
        start();
        int creators = 4;
        int lookers = 4;
        int rounds = 100;
        Map<String, AtomicInteger> added = new ConcurrentHashMap<>();
        server.addListener(new BayeuxServer.ChannelListener() {
            @Override
            public void channelAdded(ServerChannel channel) {
                added.computeIfAbsent(channel.getId(), id -> new AtomicInteger()).incrementAndGet();
            }

            @Override
            public void channelRemoved(String channelId) {
            }
        });
        ExecutorService pool = Executors.newFixedThreadPool(creators + lookers);
        try {
            for (int round = 0; round < rounds; round++) {
                String name = "/race/" + round;
                Set<Object> seen = ConcurrentHashMap.newKeySet();
                ServerChannel.MessageListener recorder = (from, channel, message) -> seen.add(message.getData());
                ConfigurableServerChannel.Initializer initializer = channel -> channel.addListener(recorder);
                CyclicBarrier barrier = new CyclicBarrier(creators + lookers);
                List<Future<Boolean>> created = new ArrayList<>();
                List<Future<?>> looked = new ArrayList<>();
                for (int i = 0; i < creators; i++) {
                    String data = "created-" + i;
                    created.add(pool.submit(() -> {
                        barrier.await(5, TimeUnit.SECONDS);
                        MarkedReference<ServerChannel> reference = server.createChannelIfAbsent(name, initializer);
                        reference.getReference().publish(null, data);
                        return reference.isMarked();
                    }));
                }
                for (int i = 0; i < lookers; i++) {
                    String data = "looked-" + i;
                    looked.add(pool.submit(() -> {
                        barrier.await(5, TimeUnit.SECONDS);
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                        ServerChannel channel;
                        while ((channel = server.getChannel(name)) == null) {
                            if (System.nanoTime() > deadline) {
                                throw new AssertionError("Channel " + name + " never appeared");
                            }
                            Thread.onSpinWait();
                        }
                        channel.publish(null, data);
                        return null;
                    }));
                }
                int marked = 0;
                for (Future<Boolean> future : created) {
                    marked += future.get(5, TimeUnit.SECONDS) ? 1 : 0;
                }
                for (Future<?> future : looked) {
                    future.get(5, TimeUnit.SECONDS);
                }
                assertEquals(1, marked, "exactly one call creates " + name);
                assertEquals(creators + lookers, seen.size(), "every publish on " + name + " passed the initializer's listener: " + seen);
                assertEquals(List.of(recorder), server.getChannel(name).getListeners(), "only the winner's initialization is kept");
                assertEquals(1, added.get(name).get(), "channelAdded told once for " + name);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void createChannelIfAbsentRunsItsInitializersOnceOnTheWinnerWhileTheOthersWait() throws Exception {
        start();
        int callers = 8;
        AtomicInteger configured = new AtomicInteger();
        AtomicInteger initialized = new AtomicInteger();
        server.addListener(new BayeuxServer.ChannelListener() {
            @Override
            public void configureChannel(ConfigurableServerChannel channel) {
                configured.incrementAndGet();
            }

            @Override
            public void channelAdded(ServerChannel channel) {
            }

            @Override
            public void channelRemoved(String channelId) {
            }
        });
        // The callers about to ask for the channel. The winner's initializer keeps the channel
        // half-configured until each other caller has asked and waits (or has already returned,
        // which it must not have done with a half-configured channel): the window is open for all.
        Set<Thread> asking = ConcurrentHashMap.newKeySet();
        ConfigurableServerChannel.Initializer slow = channel -> {
            initialized.incrementAndGet();
            Thread winner = Thread.currentThread();
            Await.until(Duration.ofSeconds(5), () -> asking.size() == callers
                            && asking.stream().filter(t -> t != winner).allMatch(ChannelTest::isWaiting),
                    () -> "the other callers to wait: " + asking.stream().map(t -> t.getName() + " " + t.getState()).toList());
            channel.setAttribute("ready", true);
        };
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try {
            CyclicBarrier barrier = new CyclicBarrier(callers);
            List<Future<MarkedReference<ServerChannel>>> results = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                results.add(pool.submit(() -> {
                    barrier.await(5, TimeUnit.SECONDS);
                    asking.add(Thread.currentThread());
                    return server.createChannelIfAbsent("/slow", slow);
                }));
            }
            Set<ServerChannel> channels = ConcurrentHashMap.newKeySet();
            int marked = 0;
            for (Future<MarkedReference<ServerChannel>> result : results) {
                MarkedReference<ServerChannel> reference = result.get(10, TimeUnit.SECONDS);
                assertEquals(true, reference.getReference().getAttribute("ready"), "nobody sees a half-configured channel");
                channels.add(reference.getReference());
                marked += reference.isMarked() ? 1 : 0;
            }
            assertEquals(1, marked);
            assertEquals(1, channels.size(), "every caller gets the one channel");
            assertEquals(1, initialized.get(), "the initializers run exactly once");
            assertEquals(1, configured.get(), "configureChannel runs exactly once");
        } finally {
            pool.shutdownNow();
        }
    }

    /** Whether {@code thread} is parked or blocked on a monitor: not running. */
    private static boolean isWaiting(Thread thread) {
        Thread.State state = thread.getState();
        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING || state == Thread.State.BLOCKED;
    }

    @Test
    void anInitializerThatLooksUpItsOwnChannelGetsIt() {
        start();
        List<MarkedReference<ServerChannel>> inner = new ArrayList<>();
        MarkedReference<ServerChannel> outer = server.createChannelIfAbsent("/self", channel -> inner.add(server.createChannelIfAbsent("/self")));
        assertTrue(outer.isMarked());
        assertSame(outer.getReference(), inner.get(0).getReference());
        assertFalse(inner.get(0).isMarked());
    }

    @Test
    void createChannelIfAbsentReturnsTheExistingChannelUnmarked() {
        start();
        MarkedReference<ServerChannel> first = server.createChannelIfAbsent("/chat/room");
        AtomicInteger initialized = new AtomicInteger();
        MarkedReference<ServerChannel> second = server.createChannelIfAbsent("/chat/room", channel -> initialized.incrementAndGet());
        assertTrue(first.isMarked());
        assertFalse(second.isMarked());
        assertSame(first.getReference(), second.getReference());
        assertEquals(0, initialized.get(), "an existing channel is not initialized again");
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {"", "chat", "/", "/chat/", "/chat//room", "/chat/*/room", "/chat/ro om", "/chat/room*", "/**/chat"})
    void createChannelIfAbsentRejectsInvalidNames(String name) {
        start();
        int before = server.getChannels().size();
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> server.createChannelIfAbsent(name));
        assertTrue(x.getMessage().contains("'" + name + "'"), "the message names the bad value: " + x.getMessage());
        assertEquals(before, server.getChannels().size());
    }

    @org.junit.jupiter.api.Test
    void createChannelIfAbsentRejectsANullName() {
        start();
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> server.createChannelIfAbsent(null));
        assertTrue(x.getMessage().contains("null"), x.getMessage());
    }

    // --- sweeping

    @Test
    void idleChannelIsSweptAndChannelListenersAreTold() {
        start();
        List<String> removed = new CopyOnWriteArrayList<>();
        server.addListener(new BayeuxServer.ChannelListener() {
            @Override
            public void channelAdded(ServerChannel channel) {
            }

            @Override
            public void channelRemoved(String channelId) {
                removed.add(channelId);
            }
        });
        server.createChannelIfAbsent("/idle");

        scheduler.advance(SWEEP_PERIOD);
        assertNotNull(server.getChannel("/idle"), "a new channel survives its first sweep, so a client can still subscribe");

        scheduler.advance(2 * SWEEP_PERIOD);
        assertNull(server.getChannel("/idle"), "an idle channel goes after three idle sweeps");
        assertEquals(List.of("/idle"), removed);
    }

    @Test
    void creatingAnExistingChannelStartsItsIdleCountAgain() {
        start();
        server.createChannelIfAbsent("/idle");
        scheduler.advance(2 * SWEEP_PERIOD);
        assertFalse(server.createChannelIfAbsent("/idle").isMarked());
        scheduler.advance(2 * SWEEP_PERIOD);
        assertNotNull(server.getChannel("/idle"), "the count started again at the second creation");
        scheduler.advance(SWEEP_PERIOD);
        assertNull(server.getChannel("/idle"));
    }

    @Test
    void whatIsAddedToASweptChannelGoesToTheChannelThatTookItsPlace() {
        start();
        ServerChannel stale = server.createChannelIfAbsent("/late", channel -> channel.setLazyTimeout(1234)).getReference();
        scheduler.advance(3 * SWEEP_PERIOD);
        assertNull(server.getChannel("/late"), "swept");

        ServerChannel.MessageListener listener = (from, channel, message) -> true;
        stale.addListener(listener);
        ServerChannel successor = server.getChannel("/late");
        assertNotNull(successor, "a listener added to a swept channel brings the channel back");
        assertEquals(List.of(listener), successor.getListeners());
        assertEquals(1234, successor.getLazyTimeout(), "with the swept channel's settings");

        TestClient bob = new TestClient(server, true).connected();
        scheduler.advance(3 * SWEEP_PERIOD);
        successor.removeListener(listener);
        scheduler.advance(3 * SWEEP_PERIOD);
        assertNull(server.getChannel("/late"));
        assertTrue(successor.subscribe(server.getSession(bob.clientId())));
        assertEquals(Set.of(server.getSession(bob.clientId())), server.getChannel("/late").getSubscribers(), "so does a subscription");
        assertEquals(List.of("/late"), server.getSession(bob.clientId()).getSubscriptions().stream().map(ServerChannel::getId).toList());
        assertSame(server.getChannel("/late"), server.getSession(bob.clientId()).getSubscriptions().iterator().next());
    }

    @Test
    void persistentChannelIsNeverSwept() {
        start();
        server.createChannelIfAbsent("/kept", ConfigurableServerChannel.Initializer.persistent());
        server.createChannelIfAbsent("/gone");
        scheduler.advance(10 * SWEEP_PERIOD);
        assertNotNull(server.getChannel("/kept"));
        assertNull(server.getChannel("/gone"));
    }

    @Test
    void channelWithSubscriberIsNotSweptUntilItLosesIt() {
        start();
        TestClient bob = new TestClient(server, true).connected();
        assertEquals(true, bob.subscribe("/chat/room").get("successful"));
        scheduler.advance(5 * SWEEP_PERIOD);
        assertNotNull(server.getChannel("/chat/room"));

        assertEquals(true, bob.unsubscribe("/chat/room").get("successful"));
        scheduler.advance(3 * SWEEP_PERIOD);
        assertNull(server.getChannel("/chat/room"));
    }

    @Test
    void channelWithListenerIsNotSwept() {
        start();
        server.createChannelIfAbsent("/watched", channel -> channel.addListener((ServerChannel.MessageListener) (from, c, m) -> true));
        scheduler.advance(10 * SWEEP_PERIOD);
        assertNotNull(server.getChannel("/watched"));
    }

    // --- lazy channels

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void lazyMessageWaitsForTheMaxLazyTimeout(boolean push) {
        start();
        server.createChannelIfAbsent("/lazy", channel -> channel.setLazy(true));
        assertLazyDeliveryAfter(push, MAX_LAZY_TIMEOUT);
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void lazyMessageWaitsForTheChannelsOwnLazyTimeout(boolean push) {
        start();
        server.createChannelIfAbsent("/lazy", channel -> channel.setLazyTimeout(1500));
        assertTrue(server.getChannel("/lazy").isLazy(), "a lazy timeout makes the channel lazy");
        assertLazyDeliveryAfter(push, 1500);
    }

    private void assertLazyDeliveryAfter(boolean push, long lazyTimeout) {
        TestClient alice = new TestClient(server, push).connected();
        TestClient bob = new TestClient(server, push).connected();
        assertEquals(true, bob.subscribe("/lazy").get("successful"));
        var held = bob.connect();
        assertFalse(held.isDone());

        assertEquals(true, alice.publish("/lazy", "zzz").get("successful"));
        assertFalse(held.isDone(), "a lazy message does not release the held connect");
        assertTrue(bob.pushed.isEmpty(), "nor is it pushed");

        scheduler.advance(lazyTimeout - 1);
        assertFalse(held.isDone());
        assertTrue(bob.pushed.isEmpty());

        scheduler.advance(1);
        List<Map<String, Object>> received;
        if (push) {
            received = List.of(bob.nextPushed());
            assertFalse(held.isDone(), "over a pushing transport the connect stays held");
        } else {
            assertTrue(held.isDone(), "the lazy timeout releases the held connect");
            received = Deliveries.onlyDeliveries(held.join());
        }
        assertEquals(List.of("zzz"), data(received));
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void aLazyMessageWhoseTimeoutExpiresWhileItsSessionIsInABatchGoesWhenTheBatchEnds(boolean push) {
        start();
        server.createChannelIfAbsent("/lazy", channel -> channel.setLazyTimeout(1500));
        TestClient alice = new TestClient(server, push).connected();
        TestClient bob = new TestClient(server, push).connected();
        assertEquals(true, bob.subscribe("/lazy").get("successful"));
        var held = bob.connect();
        ServerSessionImpl session = (ServerSessionImpl) server.getSession(bob.clientId());
        session.startBatch();
        assertEquals(true, alice.publish("/lazy", "zzz").get("successful"));
        scheduler.advance(1500);
        assertFalse(held.isDone(), "the session is in a batch");
        assertTrue(bob.pushed.isEmpty());

        session.endBatch();
        List<Map<String, Object>> received;
        if (push) {
            received = List.of(bob.nextPushed());
        } else {
            assertTrue(held.isDone(), "the end of the batch sends what became due during it");
            received = Deliveries.onlyDeliveries(held.join());
        }
        assertEquals(List.of("zzz"), data(received));
    }

    @Test
    void lazyMessageWhoseTimeoutExpiredBetweenConnectsIsNotHeldByTheNextConnect() {
        start();
        server.createChannelIfAbsent("/lazy", channel -> channel.setLazy(true));
        TestClient alice = new TestClient(server, false).connected();
        TestClient bob = new TestClient(server, false).connected();
        assertEquals(true, bob.subscribe("/lazy").get("successful"));

        alice.publish("/lazy", "overdue");
        scheduler.advance(MAX_LAZY_TIMEOUT);

        var next = bob.connect();
        assertTrue(next.isDone(), "the lazy message is due: the connect carries it at once");
        assertEquals(List.of("overdue"), data(Deliveries.onlyDeliveries(next.join())));
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void nonLazyMessageTakesTheWaitingLazyOnesAlongInOrder(boolean push) {
        start();
        server.createChannelIfAbsent("/lazy", channel -> channel.setLazy(true));
        TestClient alice = new TestClient(server, push).connected();
        TestClient bob = new TestClient(server, push).connected();
        assertEquals(true, bob.subscribe(List.of("/lazy", "/chat")).get("successful"));
        var held = bob.connect();

        alice.publish("/lazy", "first");
        alice.publish("/lazy", "second");
        scheduler.advance(MAX_LAZY_TIMEOUT / 2);
        assertFalse(held.isDone());
        assertTrue(bob.pushed.isEmpty());

        alice.publish("/chat", "third");
        List<Map<String, Object>> received;
        if (push) {
            received = drain(bob);
        } else {
            assertTrue(held.isDone(), "a non-lazy message releases the held connect at once");
            received = Deliveries.onlyDeliveries(held.join());
        }
        assertEquals(List.of("first", "second", "third"), data(received));
        assertEquals(List.of("/lazy", "/lazy", "/chat"), channels(received));

        scheduler.advance(MAX_LAZY_TIMEOUT);
        assertTrue(drain(bob).isEmpty(), "nothing is sent twice when the lazy timeout would have expired");
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void lazyWildcardChannelMakesTheMessagesOfEveryMatchingChannelLazy(boolean push) {
        start();
        server.createChannelIfAbsent("/chat/**", channel -> channel.setLazy(true));
        server.createChannelIfAbsent("/chat/room");
        assertFalse(server.getChannel("/chat/room").isLazy());
        TestClient alice = new TestClient(server, push).connected();
        TestClient bob = new TestClient(server, push).connected();
        assertEquals(true, bob.subscribe("/chat/room").get("successful"));
        var held = bob.connect();

        assertEquals(true, alice.publish("/chat/room", "zzz").get("successful"));
        scheduler.advance(MAX_LAZY_TIMEOUT - 1);
        assertFalse(held.isDone(), "a lazy /chat/** makes /chat/room messages lazy");
        assertTrue(bob.pushed.isEmpty());

        scheduler.advance(1);
        List<Map<String, Object>> received = push ? List.of(bob.nextPushed()) : Deliveries.onlyDeliveries(held.join());
        assertEquals(List.of("zzz"), data(received));
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void lazyTimeoutOfAWildcardChannelBoundsTheWaitOfItsMatchingChannels(boolean push) {
        start();
        server.createChannelIfAbsent("/lazy/**", channel -> channel.setLazyTimeout(1200));
        server.createChannelIfAbsent("/lazy/room", channel -> channel.setLazyTimeout(3000));
        TestClient alice = new TestClient(server, push).connected();
        TestClient bob = new TestClient(server, push).connected();
        bob.subscribe("/lazy/room");
        var held = bob.connect();
        alice.publish("/lazy/room", "zzz");
        scheduler.advance(1199);
        assertFalse(held.isDone());
        assertTrue(bob.pushed.isEmpty());
        scheduler.advance(1);
        List<Map<String, Object>> received = push ? List.of(bob.nextPushed()) : Deliveries.onlyDeliveries(held.join());
        assertEquals(List.of("zzz"), data(received));
    }

    @Test
    void lazyTimeoutLongerThanTheMaxLazyTimeoutIsCappedByIt() {
        start(builder -> builder.maxLazyTimeout(java.time.Duration.ofMillis(2000)));
        server.createChannelIfAbsent("/lazy", channel -> channel.setLazyTimeout(60_000));
        assertLazyDeliveryAfter(false, 2000);
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void privateDeliveryOfALazyMessageWaitsThenANonLazyOneTakesItAlongInOrder(boolean push) {
        start();
        TestClient bob = new TestClient(server, push).connected();
        var held = bob.connect();
        ServerSession session = server.getSession(bob.clientId());

        ServerMessage.Mutable lazy = server.newMessage();
        lazy.setChannel("/private");
        lazy.setData("lazy");
        lazy.setLazy(true);
        session.deliver(null, lazy, io.bayeux.api.Promise.noop());
        scheduler.advance(MAX_LAZY_TIMEOUT - 1);
        assertFalse(held.isDone(), "a lazy message delivered to a session waits");
        assertTrue(bob.pushed.isEmpty());

        session.deliver(null, "/private", "eager", io.bayeux.api.Promise.noop());
        List<Map<String, Object>> received = push ? drain(bob) : Deliveries.onlyDeliveries(held.join());
        assertEquals(List.of("lazy", "eager"), data(received));
        scheduler.advance(MAX_LAZY_TIMEOUT);
        assertTrue(drain(bob).isEmpty(), "nothing is sent twice");
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void privateDeliveryOfALazyMessageIsBoundByTheLazyTimeoutOfItsChannel(boolean push) {
        start();
        server.createChannelIfAbsent("/private/**", channel -> channel.setLazyTimeout(700));
        TestClient bob = new TestClient(server, push).connected();
        var held = bob.connect();
        ServerMessage.Mutable lazy = server.newMessage();
        lazy.setChannel("/private/bob");
        lazy.setData("lazy");
        lazy.setLazy(true);
        server.getSession(bob.clientId()).deliver(null, lazy, io.bayeux.api.Promise.noop());
        scheduler.advance(699);
        assertFalse(held.isDone());
        assertTrue(bob.pushed.isEmpty());
        scheduler.advance(1);
        List<Map<String, Object>> received = push ? List.of(bob.nextPushed()) : Deliveries.onlyDeliveries(held.join());
        assertEquals(List.of("lazy"), data(received));
    }

    // --- listeners

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void channelMessageListenerVetoesAMessage(boolean push) {
        start();
        server.createChannelIfAbsent("/chat/room", channel ->
                channel.addListener((ServerChannel.MessageListener) (from, c, message) -> !"blocked".equals(message.getData())));
        TestClient alice = new TestClient(server, push).connected();
        TestClient bob = new TestClient(server, push).connected();
        bob.subscribe("/chat/room");

        Map<String, Object> vetoed = alice.publish("/chat/room", "blocked");
        assertEquals(false, vetoed.get("successful"));
        assertEquals("404::message_deleted", vetoed.get("error"));
        assertEquals(true, alice.publish("/chat/room", "allowed").get("successful"));

        assertEquals(List.of("allowed"), data(drain(bob)));
    }

    @Test
    void wildcardChannelListenersSeeMessagesOfMatchingChannels() {
        start();
        Map<String, List<String>> seen = new ConcurrentHashMap<>();
        for (String wild : List.of("/chat/*", "/chat/**", "/**", "/other/*")) {
            server.createChannelIfAbsent(wild, channel -> channel.addListener((ServerChannel.MessageListener) (from, c, message) -> {
                seen.computeIfAbsent(wild, w -> new CopyOnWriteArrayList<>()).add(c.getId() + "=" + message.getData());
                return true;
            }));
        }
        TestClient alice = new TestClient(server, false).connected();
        alice.publish("/chat/a", "1");
        alice.publish("/chat/a/b", "2");

        assertEquals(List.of("/chat/a=1"), seen.get("/chat/*"));
        assertEquals(List.of("/chat/a=1", "/chat/a/b=2"), seen.get("/chat/**"));
        assertEquals(List.of("/chat/a=1", "/chat/a/b=2"), seen.get("/**"));
        assertNull(seen.get("/other/*"));
    }

    @Test
    void wildcardListenerVetoStopsTheMessage() {
        start();
        server.createChannelIfAbsent("/chat/**", channel -> channel.addListener((ServerChannel.MessageListener) (from, c, m) -> false));
        TestClient alice = new TestClient(server, false).connected();
        assertEquals("404::message_deleted", alice.publish("/chat/a/b", "x").get("error"));
        assertEquals(true, alice.publish("/news/a", "x").get("successful"));
    }

    @Test
    void subscriptionListenersOfChannelAndServerSeeSubscribeAndUnsubscribe() {
        start();
        List<String> events = new CopyOnWriteArrayList<>();
        server.createChannelIfAbsent("/chat/room", channel -> channel.addListener(new ServerChannel.SubscriptionListener() {
            @Override
            public void subscribed(ServerSession session, ServerChannel c, ServerMessage message) {
                events.add("channel:subscribed:" + c.getId() + ":" + message.getChannel());
            }

            @Override
            public void unsubscribed(ServerSession session, ServerChannel c, ServerMessage message) {
                events.add("channel:unsubscribed:" + c.getId() + ":" + message.getChannel());
            }
        }));
        List<ServerSession> sessions = new CopyOnWriteArrayList<>();
        server.addListener(new BayeuxServer.SubscriptionListener() {
            @Override
            public void subscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
                sessions.add(session);
                events.add("server:subscribed:" + channel.getId() + ":" + message.getChannel());
            }

            @Override
            public void unsubscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
                sessions.add(session);
                events.add("server:unsubscribed:" + channel.getId() + ":" + message.getChannel());
            }
        });
        TestClient bob = new TestClient(server, false).connected();
        bob.subscribe("/chat/room");
        bob.unsubscribe("/chat/room");

        assertEquals(List.of(
                "channel:subscribed:/chat/room:/meta/subscribe",
                "server:subscribed:/chat/room:/meta/subscribe",
                "channel:unsubscribed:/chat/room:/meta/unsubscribe",
                "server:unsubscribed:/chat/room:/meta/unsubscribe"), events);
        ServerSession bobSession = server.getSession(bob.clientId());
        assertEquals(List.of(bobSession, bobSession), sessions);
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void throwingListenerIsSkippedAndTheOthersStillRun(boolean push) {
        start();
        List<Object> seen = new CopyOnWriteArrayList<>();
        List<String> subscribed = new CopyOnWriteArrayList<>();
        server.createChannelIfAbsent("/chat/room", channel -> {
            channel.addListener((ServerChannel.MessageListener) (from, c, m) -> {
                throw new IllegalStateException("test: a broken message listener");
            });
            channel.addListener((ServerChannel.MessageListener) (from, c, m) -> seen.add(m.getData()));
            channel.addListener(new ServerChannel.SubscriptionListener() {
                @Override
                public void subscribed(ServerSession session, ServerChannel c, ServerMessage message) {
                    throw new IllegalStateException("test: a broken subscription listener");
                }

                @Override
                public void unsubscribed(ServerSession session, ServerChannel c, ServerMessage message) {
                }
            });
        });
        server.addListener(new BayeuxServer.SubscriptionListener() {
            @Override
            public void subscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
                subscribed.add(channel.getId());
            }

            @Override
            public void unsubscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
            }
        });
        TestClient alice = new TestClient(server, push).connected();
        TestClient bob = new TestClient(server, push).connected();
        assertEquals(true, bob.subscribe("/chat/room").get("successful"));
        assertEquals(List.of("/chat/room"), subscribed);

        assertEquals(true, alice.publish("/chat/room", "hello").get("successful"));
        assertEquals(List.of("hello"), seen);
        assertEquals(List.of("hello"), data(drain(bob)));
    }

    // --- wildcard subscriptions

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void subscriberToShallowWildcardReceivesChildrenButNotGrandchildren(boolean push) {
        start();
        TestClient alice = new TestClient(server, push).connected();
        TestClient bob = new TestClient(server, push).connected();
        assertEquals(true, bob.subscribe("/chat/*").get("successful"));
        alice.publish("/chat/a", "child");
        alice.publish("/chat/a/b", "grandchild");
        alice.publish("/chat", "parent");
        assertEquals(List.of("/chat/a"), channels(drain(bob)));
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void subscriberToDeepWildcardReceivesChildrenAndGrandchildren(boolean push) {
        start();
        TestClient alice = new TestClient(server, push).connected();
        TestClient bob = new TestClient(server, push).connected();
        assertEquals(true, bob.subscribe("/chat/**").get("successful"));
        alice.publish("/chat/a", "child");
        alice.publish("/chat/a/b", "grandchild");
        alice.publish("/chat", "parent");
        assertEquals(List.of("/chat/a", "/chat/a/b"), channels(drain(bob)));
    }

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void sessionReachedThroughSeveralMatchingChannelsReceivesTheMessageOnce(boolean push) {
        start();
        TestClient alice = new TestClient(server, push).connected();
        TestClient bob = new TestClient(server, push).connected();
        TestClient carol = new TestClient(server, push).connected();
        assertEquals(true, bob.subscribe(List.of("/chat/a", "/chat/*", "/chat/**")).get("successful"));
        assertEquals(true, carol.subscribe("/chat/**").get("successful"));
        alice.publish("/chat/a", "once");
        assertEquals(List.of("once"), data(drain(bob)));
        assertEquals(List.of("once"), data(drain(carol)), "subscribers of the other matching channels get it too");
    }

    // --- service channels

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void serviceMessagesReachChannelListenersButNeverSubscribers(boolean push) {
        start();
        List<Object> served = new CopyOnWriteArrayList<>();
        server.createChannelIfAbsent("/service/**", channel ->
                channel.addListener((ServerChannel.MessageListener) (from, c, m) -> served.add(c.getId() + "=" + m.getData())));
        TestClient alice = new TestClient(server, push).connected();
        TestClient bob = new TestClient(server, push).connected();
        assertEquals(true, bob.subscribe(List.of("/service/foo", "/**")).get("successful"));

        List<Map<String, Object>> batch = alice.call(Map.of("channel", "/service/foo", "data", "request"));
        assertEquals(true, TestClient.reply(batch, "/service/foo").get("successful"));
        assertEquals(List.of("/service/foo=request"), served);
        assertTrue(Deliveries.onlyDeliveries(batch).isEmpty(), "the publisher gets only its reply");

        alice.publish("/chat/room", "broadcast");
        assertEquals(List.of("/chat/room"), channels(drain(bob)), "bob's /** subscription works for broadcast channels only");
    }

    // --- broadcast to the publisher

    @ParameterizedTest(name = "push={0}")
    @ValueSource(booleans = {true, false})
    void subscribedPublisherReceivesItsOwnMessageByDefault(boolean push) {
        start();
        assertTrue(server.config().broadcastToPublisher());
        TestClient alice = new TestClient(server, push).connected();
        alice.subscribe("/chat/room");
        assertEquals(List.of("mine"), data(publishAndCollect(alice, "/chat/room", "mine")));
    }

    @ParameterizedTest(name = "push={0}, off on {1}")
    @CsvSource({"true,server", "false,server", "true,channel", "false,channel", "true,session", "false,session"})
    void broadcastToPublisherOffKeepsThePublishersOwnMessageFromIt(boolean push, String where) {
        start(builder -> builder.broadcastToPublisher(!"server".equals(where)));
        if ("channel".equals(where)) {
            server.createChannelIfAbsent("/chat/room", channel -> channel.setBroadcastToPublisher(false));
        }
        TestClient alice = new TestClient(server, push).connected();
        TestClient bob = new TestClient(server, push).connected();
        if ("session".equals(where)) {
            server.getSession(alice.clientId()).setBroadcastToPublisher(false);
        }
        alice.subscribe("/chat/room");
        bob.subscribe("/chat/room");

        assertEquals(List.of(), publishAndCollect(alice, "/chat/room", "mine"));
        assertEquals(List.of("mine"), data(drain(bob)));
        assertEquals(true, bob.publish("/chat/room", "yours").get("successful"));
        assertEquals(List.of("yours"), data(drain(alice)), "the publisher still receives the others' messages");
    }

    /** Publishes and returns the publisher's own deliveries: carried by the publish reply, pushed, or queued. */
    private static List<Map<String, Object>> publishAndCollect(TestClient publisher, String channel, Object data) {
        List<Map<String, Object>> batch = publisher.call(Map.of("channel", channel, "data", data));
        assertEquals(true, TestClient.reply(batch, channel).get("successful"));
        List<Map<String, Object>> result = new ArrayList<>(Deliveries.onlyDeliveries(batch));
        result.addAll(drain(publisher));
        return result;
    }

    @Test
    void aSessionsSubscriptionsFollowItsSubscribesAndUnsubscribesAndItsRemovalLeavesEveryChannel() {
        start();
        TestClient client = new TestClient(server, false).connected();
        ServerSession session = server.getSession(client.clientId());
        for (String channel : List.of("/s/a", "/s/b", "/s/c", "/s/d")) {
            assertEquals(true, client.subscribe(channel).get("successful"));
        }
        assertEquals(true, client.subscribe("/s/b").get("successful"), "subscribing again changes nothing");
        assertEquals(Set.of("/s/a", "/s/b", "/s/c", "/s/d"), ids(session));
        client.unsubscribe("/s/b");
        assertEquals(Set.of("/s/a", "/s/c", "/s/d"), ids(session), "taken from the middle");
        client.unsubscribe("/s/d");
        client.unsubscribe("/s/a");
        assertEquals(Set.of("/s/c"), ids(session));
        client.subscribe("/s/e");
        assertEquals(Set.of("/s/c", "/s/e"), ids(session));

        session.disconnect();
        for (String channel : List.of("/s/a", "/s/b", "/s/c", "/s/d", "/s/e")) {
            ServerChannel left = server.getChannel(channel);
            assertTrue(left == null || !left.getSubscribers().contains(session), channel);
        }
    }

    private static Set<String> ids(ServerSession session) {
        return session.getSubscriptions().stream().map(ServerChannel::getId).collect(java.util.stream.Collectors.toSet());
    }
}
