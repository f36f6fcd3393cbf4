package io.bayeux.transport;

import io.bayeux.api.Promise;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.BayeuxServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lazy messages over real sockets, as CometD defines them: lazy when any channel they are
 * published to is lazy (wildcards included) or when delivered lazy to one session; they wait
 * for the lazy timeout, or leave with the next non-lazy message, in order.
 *
 * <p>Lower bounds on arrival times are safe under load (a timer never fires early); upper
 * bounds are generous.
 */
class LazyDeliveryIT {
    private NettyBayeuxServer server;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    private void start(Duration maxLazyTimeout, Consumer<io.bayeux.api.server.BayeuxServer> setup) {
        server = NettyBayeuxServer.builder().port(0)
                .bayeuxConfig(BayeuxServerConfig.builder().maxLazyTimeout(maxLazyTimeout).timeout(Duration.ofSeconds(5)).build())
                .build().start();
        setup.accept(server.bayeux());
    }

    @ParameterizedTest(name = "websocket={0}")
    @ValueSource(booleans = {true, false})
    void aLazyWildcardChannelDelaysTheMessagesOfTheChannelsItMatches(boolean websocket) throws Exception {
        start(Duration.ofMillis(1500), bayeux -> bayeux.createChannelIfAbsent("/chat/**", channel -> channel.setLazy(true)));
        RawSubscriber bob = subscriber(websocket, "/chat/room");
        RawClient alice = publisher();

        long start = System.nanoTime();
        assertEquals(true, RawClient.reply(alice.send(Map.of("channel", "/chat/room", "data", "zzz")), "/chat/room").get("successful"));
        Map<String, Object> delivery = bob.next(10);
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals("zzz", delivery.get("data"));
        assertTrue(elapsed >= 1450, "a lazy message waits for the max lazy timeout, arrived after " + elapsed + " ms");
    }

    @ParameterizedTest(name = "websocket={0}")
    @ValueSource(booleans = {true, false})
    void theLazyTimeoutOfAWildcardChannelBoundsTheWait(boolean websocket) throws Exception {
        start(Duration.ofSeconds(60), bayeux -> bayeux.createChannelIfAbsent("/chat/**", channel -> channel.setLazyTimeout(1000)));
        RawSubscriber bob = subscriber(websocket, "/chat/room");
        RawClient alice = publisher();

        long start = System.nanoTime();
        alice.send(Map.of("channel", "/chat/room", "data", "zzz"));
        Map<String, Object> delivery = bob.next(15);
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals("zzz", delivery.get("data"));
        assertTrue(elapsed >= 950, "arrived after " + elapsed + " ms, before the lazy timeout");
    }

    @ParameterizedTest(name = "websocket={0}")
    @ValueSource(booleans = {true, false})
    void aNonLazyMessageTakesTheWaitingLazyOnesAlongInOrder(boolean websocket) throws Exception {
        start(Duration.ofSeconds(60), bayeux -> bayeux.createChannelIfAbsent("/chat/**", channel -> channel.setLazy(true)));
        RawSubscriber bob = subscriber(websocket, "/chat/room", "/news");
        RawClient alice = publisher();

        alice.send(Map.of("channel", "/chat/room", "data", "first"));
        alice.send(Map.of("channel", "/chat/room", "data", "second"));
        alice.send(Map.of("channel", "/news", "data", "third"));
        List<Object> data = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            data.add(bob.next(15).get("data"));
        }
        assertEquals(List.of("first", "second", "third"), data, "well before the 60 s lazy timeout, in order");
    }

    @ParameterizedTest(name = "websocket={0}")
    @ValueSource(booleans = {true, false})
    void aLazyMessageDeliveredToOneSessionWaitsToo(boolean websocket) throws Exception {
        start(Duration.ofMillis(1500), bayeux -> {
        });
        RawSubscriber bob = subscriber(websocket, "/news");
        ServerMessage.Mutable lazy = server.bayeux().newMessage();
        lazy.setChannel("/private");
        lazy.setData("lazy");
        lazy.setLazy(true);

        long start = System.nanoTime();
        server.bayeux().getSession(bob.client.clientId()).deliver(null, lazy, Promise.noop());
        Map<String, Object> delivery = bob.next(10);
        long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals("lazy", delivery.get("data"));
        assertTrue(elapsed >= 1450, "arrived after " + elapsed + " ms");
    }

    private RawClient publisher() throws Exception {
        RawClient alice = new RawClient(server.uri(), false).open();
        closeables.add(alice);
        alice.handshake();
        return alice;
    }

    private RawSubscriber subscriber(boolean websocket, String... channels) throws Exception {
        RawClient client = new RawClient(server.uri(), websocket).open();
        closeables.add(client);
        client.handshake();
        client.connect();
        for (String channel : channels) {
            assertEquals(true, RawClient.reply(client.send(Map.of("channel", "/meta/subscribe", "subscription", channel)), "/meta/subscribe").get("successful"));
        }
        RawSubscriber subscriber = new RawSubscriber(client, websocket);
        closeables.add(subscriber);
        return subscriber;
    }
}
