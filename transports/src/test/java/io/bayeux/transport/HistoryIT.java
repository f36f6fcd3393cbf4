package io.bayeux.transport;

import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.Scheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Channel history over real sockets, both transports: positions on messages, recovery on
 * subscribe (all or nothing, nothing lost or doubled against concurrent publishing), the
 * {@code replay} dialect, and a session that overflows being told, then recovering.
 */
class HistoryIT {
    private static final String ROOM = "/chat/room";
    private NettyBayeuxServer server;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    /** Races end differently each time: five rounds on each transport. */
    static Stream<Arguments> racedRounds() {
        return IntStream.rangeClosed(1, 5).boxed().flatMap(round -> Stream.of(Arguments.of(true, round), Arguments.of(false, round)));
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        if (server != null) {
            server.stop();
        }
    }

    private void start(HistoryPolicy policy) {
        start(policy, builder -> builder);
    }

    private void start(HistoryPolicy policy, UnaryOperator<BayeuxServerConfig.Builder> configure) {
        server = NettyBayeuxServer.builder().port(0)
                .bayeuxConfig(configure.apply(BayeuxServerConfig.builder().timeout(Duration.ofSeconds(5))).build()).build().start();
        server.bayeux().createChannelIfAbsent("/chat/**", channel -> channel.setHistory(policy));
        server.bayeux().createChannelIfAbsent("/event/**", channel -> channel.setHistory(policy.withReplayIds()));
    }

    @ParameterizedTest(name = "websocket={0}")
    @ValueSource(booleans = {true, false})
    void aClientThatComesBackGetsExactlyWhatWasPublishedWhileItWasAwayThenLiveMessages(boolean websocket) throws Exception {
        start(HistoryPolicy.of(100, Duration.ofMinutes(5)));
        RawSubscriber alice = subscriber(websocket);
        Map<String, Object> fresh = history(subscribe(alice, ROOM, Map.of()), ROOM);
        assertNull(fresh.get("recovered"), "a subscription that asked for nothing is not told of recovery: " + fresh);
        for (int i = 1; i <= 3; i++) {
            publish(ROOM, "m" + i);
        }
        Map<String, Object> last = null;
        for (int i = 1; i <= 3; i++) {
            last = alice.next(10);
            assertEquals("m" + i, last.get("data"));
        }
        Map<String, Object> position = position(last);
        assertEquals(((Number) fresh.get("offset")).longValue() + 3, ((Number) position.get("offset")).longValue(), "offsets count the messages");
        assertEquals(fresh.get("epoch"), position.get("epoch"));
        alice.client.send(Map.of("channel", "/meta/disconnect"));

        for (int i = 4; i <= 8; i++) {
            publish(ROOM, "m" + i);
        }
        RawSubscriber back = subscriber(websocket);
        Map<String, Object> outcome = history(subscribe(back, ROOM, Map.of("recover", Map.of(ROOM, position))), ROOM);
        assertEquals(true, outcome.get("recovered"), "recovered: " + outcome);
        assertEquals(5, outcome.get("replayed"));
        long offset = ((Number) position.get("offset")).longValue();
        for (int i = 4; i <= 8; i++) {
            Map<String, Object> message = back.next(10);
            assertEquals("m" + i, message.get("data"));
            assertEquals(++offset, ((Number) position(message).get("offset")).longValue());
        }
        publish(ROOM, "live");
        assertEquals("live", back.next(10).get("data"), "the first live message comes right after the replayed ones");
    }

    @ParameterizedTest(name = "websocket={0}")
    @ValueSource(booleans = {true, false})
    void aGapTheHistoryNoLongerHoldsIsNotRecoveredAndNothingIsReplayed(boolean websocket) throws Exception {
        start(HistoryPolicy.of(3, Duration.ofMinutes(5)));
        RawSubscriber alice = subscriber(websocket);
        subscribe(alice, ROOM, Map.of());
        publish(ROOM, "seen");
        Map<String, Object> position = position(alice.next(10));
        alice.client.send(Map.of("channel", "/meta/disconnect"));
        for (int i = 1; i <= 5; i++) {
            publish(ROOM, "missed" + i);
        }

        RawSubscriber back = subscriber(websocket);
        Map<String, Object> outcome = history(subscribe(back, ROOM, Map.of("recover", Map.of(ROOM, position))), ROOM);
        assertEquals(false, outcome.get("recovered"), "five missed, three kept: " + outcome);
        assertEquals("trimmed", outcome.get("reason"));
        assertEquals(((Number) position.get("offset")).longValue() + 5, ((Number) outcome.get("offset")).longValue(), "where it starts now");
        publish(ROOM, "live");
        assertEquals("live", back.next(10).get("data"), "nothing replayed before the live message");
    }

    @ParameterizedTest(name = "websocket={0}")
    @ValueSource(booleans = {true, false})
    void aGapOlderThanTheTtlIsNotRecoveredAndNothingIsReplayed(boolean websocket) throws Exception {
        // The server's clock, set forward by the test: the messages' ttl passes without waiting.
        Scheduler system = Scheduler.newSystemScheduler("history-it-scheduler");
        closeables.add(system::shutdown);
        AtomicLong ahead = new AtomicLong();
        Scheduler forward = new Scheduler() {
            @Override
            public long now() {
                return system.now() + ahead.get();
            }

            @Override
            public Cancellable schedule(Runnable task, long delayMillis) {
                return system.schedule(task, delayMillis);
            }
        };
        start(HistoryPolicy.of(100, Duration.ofSeconds(2)), config -> config.scheduler(forward));
        RawSubscriber alice = subscriber(websocket);
        subscribe(alice, ROOM, Map.of());
        publish(ROOM, "seen");
        Map<String, Object> position = position(alice.next(10));
        alice.client.send(Map.of("channel", "/meta/disconnect"));
        publish(ROOM, "missed");
        ahead.addAndGet(3_000);

        RawSubscriber back = subscriber(websocket);
        Map<String, Object> outcome = history(subscribe(back, ROOM, Map.of("recover", Map.of(ROOM, position))), ROOM);
        assertEquals(false, outcome.get("recovered"), "the missed message is past its ttl: " + outcome);
        assertEquals("expired", outcome.get("reason"));
        publish(ROOM, "live");
        assertEquals("live", back.next(10).get("data"), "nothing replayed before the live message");
    }

    @ParameterizedTest(name = "websocket={0}")
    @ValueSource(booleans = {true, false})
    void aPositionOfAnotherEpochOrPastTheEndIsNotRecovered(boolean websocket) throws Exception {
        start(HistoryPolicy.of(100, Duration.ofMinutes(5)));
        publish(ROOM, "before");
        RawSubscriber client = subscriber(websocket);
        Map<String, Object> fresh = history(subscribe(client, ROOM, Map.of()), ROOM);
        long top = ((Number) fresh.get("offset")).longValue();
        client.client.send(Map.of("channel", "/meta/unsubscribe", "subscription", ROOM));

        Map<String, Object> otherEpoch = history(subscribe(client, ROOM, Map.of("recover", Map.of(ROOM, Map.of("offset", top - 1, "epoch", "another")))), ROOM);
        assertEquals(Map.of("recovered", false, "reason", "epoch"), Map.of("recovered", otherEpoch.get("recovered"), "reason", otherEpoch.get("reason")));
        client.client.send(Map.of("channel", "/meta/unsubscribe", "subscription", ROOM));
        Map<String, Object> ahead = history(subscribe(client, ROOM, Map.of("recover", Map.of(ROOM, Map.of("offset", top + 10, "epoch", fresh.get("epoch"))))), ROOM);
        assertEquals("ahead", ahead.get("reason"), "an offset this history never reached: " + ahead);
        publish(ROOM, "live");
        assertEquals("live", client.next(10).get("data"), "'before' was not replayed");
    }

    @ParameterizedTest(name = "websocket={0}")
    @ValueSource(booleans = {true, false})
    void aChannelWithoutHistoryAnswersThatItHasNone(boolean websocket) throws Exception {
        start(HistoryPolicy.of(100, Duration.ofMinutes(5)));
        RawSubscriber client = subscriber(websocket);
        Map<String, Object> reply = RawClient.reply(client.send(Map.of("channel", "/meta/subscribe", "subscription", "/news",
                "ext", Map.of("recover", Map.of("/news", Map.of("offset", 1, "epoch", "x"))))), "/meta/subscribe");
        assertEquals(true, reply.get("successful"));
        assertEquals(Map.of("recovered", false, "reason", "no_history"), history(reply, "/news"));
        Map<String, Object> plain = RawClient.reply(client.send(Map.of("channel", "/meta/subscribe", "subscription", "/other")), "/meta/subscribe");
        assertNull(plain.get("ext"), "no history, nothing asked: nothing said");
    }

    @ParameterizedTest(name = "websocket={0}, round {1}")
    @MethodSource("racedRounds")
    void publishesRacingTheRecoveryAreNeitherLostNorDoubled(boolean websocket, int round) throws Exception {
        // Unbounded queues: what is tested is the join of the replay and the live messages, not
        // the overflow a fast publisher could cause (told and recovered: the last test).
        start(HistoryPolicy.of(100_000, Duration.ofMinutes(5)), config -> config.maxQueue(-1));
        RawSubscriber alice = subscriber(websocket);
        Map<String, Object> start = history(subscribe(alice, ROOM, Map.of()), ROOM);
        alice.client.send(Map.of("channel", "/meta/disconnect"));
        RawSubscriber back = subscriber(websocket);
        ServerChannel room = server.bayeux().createChannelIfAbsent(ROOM).getReference();
        // The publisher runs before, during and after the resubscription: 200 messages at least
        // before it is sent, then until it was answered, then 1,000 more.
        CountDownLatch published = new CountDownLatch(200);
        AtomicBoolean answered = new AtomicBoolean();
        AtomicInteger total = new AtomicInteger();
        Thread publisher = Thread.ofPlatform().name("publisher").start(() -> {
            int after = 0;
            while (after < 1_000 && total.get() < 90_000) {
                room.publish(null, "m" + total.incrementAndGet());
                published.countDown();
                if (answered.get()) {
                    after++;
                }
            }
        });
        closeables.add(() -> publisher.join(10_000));
        assertTrue(published.await(10, TimeUnit.SECONDS), "the publisher started");
        Map<String, Object> outcome = history(subscribe(back, ROOM, Map.of("recover", Map.of(ROOM, Map.of("offset", start.get("offset"), "epoch", start.get("epoch"))))), ROOM);
        answered.set(true);
        assertEquals(true, outcome.get("recovered"), "recovered: " + outcome);
        publisher.join(20_000);
        assertFalse(publisher.isAlive(), "the publisher ended");
        long replayed = ((Number) outcome.get("replayed")).longValue();
        assertTrue(replayed >= 200 && replayed < total.get(), replayed + " of " + total.get() + " replayed: some before, some live");
        long offset = ((Number) start.get("offset")).longValue();
        for (int i = 1; i <= total.get(); i++) {
            Map<String, Object> message = back.next(20);
            assertEquals("m" + i, message.get("data"), "message " + i + " after " + replayed + " replayed");
            assertEquals(++offset, ((Number) position(message).get("offset")).longValue());
        }
        publish(ROOM, "sentinel");
        assertEquals("sentinel", back.next(10).get("data"), "nothing twice");
    }

    @ParameterizedTest(name = "websocket={0}")
    @ValueSource(booleans = {true, false})
    void theReplayDialectServesMinusOneMinusTwoAndAnId(boolean websocket) throws Exception {
        start(HistoryPolicy.of(100, Duration.ofMinutes(5)));
        String channel = "/event/orders";
        for (int i = 1; i <= 4; i++) {
            publish(channel, Map.of("payload", Map.of("n", i)));
        }
        // -2: everything retained, in order, each with its replay id in data.event.
        RawSubscriber all = subscriber(websocket);
        assertEquals(true, RawClient.reply(all.send(Map.of("channel", "/meta/subscribe", "subscription", channel,
                "ext", Map.of("replay", Map.of(channel, -2)))), "/meta/subscribe").get("successful"));
        List<Long> ids = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            Map<String, Object> message = all.next(10);
            assertEquals(Map.of("n", i), data(message).get("payload"), "the publisher's data is kept beside the event");
            ids.add(replayId(message));
        }
        for (int i = 1; i < ids.size(); i++) {
            assertTrue(ids.get(i) > ids.get(i - 1), "replay ids grow: " + ids);
        }
        // N: what follows the second message; -1: only new ones; the string form some clients send.
        RawSubscriber afterSecond = subscriber(websocket);
        RawClient.reply(afterSecond.send(Map.of("channel", "/meta/subscribe", "subscription", channel,
                "ext", Map.of("replay", Map.of(channel, String.valueOf(ids.get(1)))))), "/meta/subscribe");
        RawSubscriber onlyNew = subscriber(websocket);
        RawClient.reply(onlyNew.send(Map.of("channel", "/meta/subscribe", "subscription", channel,
                "ext", Map.of("replay", Map.of(channel, -1)))), "/meta/subscribe");
        publish(channel, Map.of("payload", Map.of("n", 5)));
        assertEquals(ids.get(2), replayId(afterSecond.next(10)));
        assertEquals(ids.get(3), replayId(afterSecond.next(10)));
        Map<String, Object> fifth = afterSecond.next(10);
        assertEquals(Map.of("n", 5), data(fifth).get("payload"));
        assertEquals(Map.of("n", 5), data(onlyNew.next(10)).get("payload"), "-1 replays nothing");
        assertEquals(Map.of("n", 5), data(all.next(10)).get("payload"));
    }

    @ParameterizedTest(name = "websocket={0}")
    @ValueSource(booleans = {true, false})
    void aReplayIdTheHistoryDoesNotCoverFailsTheSubscription(boolean websocket) throws Exception {
        start(HistoryPolicy.of(2, Duration.ofMinutes(5)));
        String channel = "/event/orders";
        RawSubscriber client = subscriber(websocket);
        RawClient.reply(client.send(Map.of("channel", "/meta/subscribe", "subscription", channel,
                "ext", Map.of("replay", Map.of(channel, -1)))), "/meta/subscribe");
        publish(channel, Map.of("n", 1));
        long first = replayId(client.next(10));
        for (int i = 2; i <= 5; i++) {
            publish(channel, Map.of("n", i));
            client.next(10);
        }
        for (Object invalid : List.of(first, first + 100, "not-a-number")) {
            RawSubscriber late = subscriber(websocket);
            Map<String, Object> reply = RawClient.reply(late.send(Map.of("channel", "/meta/subscribe", "subscription", channel,
                    "ext", Map.of("replay", Map.of(channel, invalid)))), "/meta/subscribe");
            assertEquals(false, reply.get("successful"), "replay id " + invalid + ": " + reply);
            assertTrue(String.valueOf(reply.get("error")).startsWith("400:" + channel + ","), "error: " + reply.get("error"));
            assertTrue(String.valueOf(reply.get("error")).endsWith(":replay_id_invalid"), "error: " + reply.get("error"));
            assertNull(late.poll(0, TimeUnit.MILLISECONDS), "nothing delivered");
        }
    }

    @ParameterizedTest(name = "websocket={0}")
    @ValueSource(booleans = {true, false})
    void theHandshakeEchoesTheReplayExtensionAndAnnouncesItOnceAChannelSpeaksIt(boolean websocket) throws Exception {
        server = NettyBayeuxServer.builder().port(0).build().start();
        server.bayeux().createChannelIfAbsent("/chat/**").getReference().setHistory(HistoryPolicy.of(2, Duration.ofMinutes(5)));
        Map<String, Object> asked = Map.of("channel", "/meta/handshake", "version", "1.0",
                "supportedConnectionTypes", List.of("websocket", "long-polling"), "ext", Map.of("replay", true));
        RawClient client = new RawClient(server.uri(), websocket).open();
        closeables.add(client);
        assertEquals(Map.of("replay", true), RawClient.reply(client.send(asked), "/meta/handshake").get("ext"), "echoed");
        RawClient plain = new RawClient(server.uri(), websocket).open();
        closeables.add(plain);
        assertNull(plain.handshake().get("ext"), "no channel speaks it: not announced");

        server.bayeux().createChannelIfAbsent("/event/**").getReference().setHistory(HistoryPolicy.of(2, Duration.ofMinutes(5)).withReplayIds());
        RawClient told = new RawClient(server.uri(), websocket).open();
        closeables.add(told);
        assertEquals(Map.of("replay", true), told.handshake().get("ext"), "announced unasked, as Salesforce does");
    }

    @org.junit.jupiter.api.Test
    void aLongPollingSessionWhoseQueueOverflowsIsToldAndRecoversEverythingFromHistory() throws Exception {
        // The default overflow policy.
        start(HistoryPolicy.of(100, Duration.ofMinutes(5)), config -> config.maxQueue(10));
        RawClient client = connectedClient(false);
        Map<String, Object> start = history(RawClient.reply(client.send(Map.of("channel", "/meta/subscribe", "subscription", ROOM)), "/meta/subscribe"), ROOM);
        String firstSession = client.clientId();
        // The client does not poll while 30 messages go out: its queue of 10 overflows.
        for (int i = 1; i <= 30; i++) {
            publish(ROOM, "m" + i);
        }
        // The session is removed from the application's executor: a connect may take what was queued before that.
        Map<String, Object> from = start;
        List<Object> received = new ArrayList<>();
        Map<String, Object> told = null;
        for (int attempt = 0; attempt < 5 && told == null; attempt++) {
            List<Map<String, Object>> replies = client.connect();
            for (Map<String, Object> message : replies) {
                if (message.containsKey("data")) {
                    received.add(message.get("data"));
                    from = position(message);
                }
            }
            Map<String, Object> reply = RawClient.reply(replies, "/meta/connect");
            if (!Boolean.TRUE.equals(reply.get("successful"))) {
                told = reply;
            }
        }
        assertNotNull(told, "the client was told within 5 connects; it received " + received);
        assertEquals("409::queue_full", told.get("error"), "the client is told why: " + told);
        assertEquals("handshake", ((Map<?, ?>) told.get("advice")).get("reconnect"));

        client.handshake();
        assertNotEquals(firstSession, client.clientId());
        RawSubscriber back = new RawSubscriber(client, false);
        closeables.add(back);
        Map<String, Object> outcome = history(subscribe(back, ROOM, Map.of("recover", Map.of(ROOM, Map.of("offset", from.get("offset"), "epoch", from.get("epoch"))))), ROOM);
        assertEquals(true, outcome.get("recovered"), "recovered: " + outcome);
        assertEquals(30 - received.size(), outcome.get("replayed"));
        for (int i = received.size() + 1; i <= 30; i++) {
            received.add(back.next(10).get("data"));
        }
        for (int i = 1; i <= 30; i++) {
            assertEquals("m" + i, received.get(i - 1), "every message once, in order: " + received);
        }
    }

    @ParameterizedTest(name = "websocket={0}, round {1}")
    @MethodSource("racedRounds")
    void aSessionThatOverflowsWhileReadingGetsAnUnbrokenRunThenIsToldAndRecoversTheRest(boolean websocket, int round) throws Exception {
        // The default overflow policy, a queue a fast publisher overflows while the client reads.
        start(HistoryPolicy.of(100_000, Duration.ofMinutes(5)), config -> config.maxQueue(20));
        RawClient client = connectedClient(websocket);
        Map<String, Object> from = history(RawClient.reply(client.send(Map.of("channel", "/meta/subscribe", "subscription", ROOM)), "/meta/subscribe"), ROOM);
        // Over WebSocket, the connect a client holds, sent again whenever it is answered: the
        // server answers it when the session goes.
        String heldConnect = "[{\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"clientId\":\"" + client.clientId() + "\"}]";
        if (websocket) {
            client.sendRaw(heldConnect);
        }
        int total = 5_000;
        ServerChannel room = server.bayeux().createChannelIfAbsent(ROOM).getReference();
        Thread publisher = Thread.ofPlatform().name("publisher").start(() -> {
            for (int i = 1; i <= total; i++) {
                room.publish(null, "m" + i);
            }
        });
        closeables.add(() -> publisher.join(10_000));
        List<Object> received = new ArrayList<>();
        Map<String, Object> told = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (told == null && System.nanoTime() < deadline) {
            List<Map<String, Object>> messages = new ArrayList<>();
            if (websocket) {
                Map<String, Object> message = client.received.poll(100, TimeUnit.MILLISECONDS);
                if (message != null) {
                    messages.add(message);
                }
            } else {
                messages = client.connect();
            }
            for (Map<String, Object> message : messages) {
                if (message.containsKey("data")) {
                    received.add(message.get("data"));
                    from = position(message);
                } else if ("/meta/connect".equals(message.get("channel")) && !Boolean.TRUE.equals(message.get("successful"))) {
                    told = message;
                } else if (websocket && "/meta/connect".equals(message.get("channel"))) {
                    client.sendRaw(heldConnect);
                }
            }
        }
        assertNotNull(told, "the client was told within 20 s; it received " + received.size());
        assertEquals("409::queue_full", told.get("error"), "the client is told why: " + told);
        assertTrue(received.size() < total, "the queue overflowed: " + received.size() + " received");
        for (int i = 1; i <= received.size(); i++) {
            assertEquals("m" + i, received.get(i - 1), "what came before the overflow has no gap: message " + i + " of " + received.size());
        }
        publisher.join(20_000);
        assertFalse(publisher.isAlive(), "the publisher ended");

        // The client comes back from the position of the last message it received: the rest, once each.
        RawSubscriber back = subscriber(websocket);
        Map<String, Object> outcome = history(subscribe(back, ROOM, Map.of("recover", Map.of(ROOM, Map.of("offset", from.get("offset"), "epoch", from.get("epoch"))))), ROOM);
        assertEquals(true, outcome.get("recovered"), "recovered: " + outcome);
        assertEquals(total - received.size(), ((Number) outcome.get("replayed")).intValue());
        for (int i = received.size() + 1; i <= total; i++) {
            assertEquals("m" + i, back.next(10).get("data"));
        }
    }

    // --- helpers

    private void publish(String channel, Object data) {
        server.bayeux().createChannelIfAbsent(channel).getReference().publish(null, data);
    }

    /** A client that has handshaken and connected, closed after the test. */
    private RawClient connectedClient(boolean websocket) throws Exception {
        RawClient client = new RawClient(server.uri(), websocket).open();
        closeables.add(client);
        client.handshake();
        client.connect();
        return client;
    }

    private RawSubscriber subscriber(boolean websocket) throws Exception {
        RawSubscriber subscriber = new RawSubscriber(connectedClient(websocket), websocket);
        closeables.add(subscriber);
        return subscriber;
    }

    private static Map<String, Object> subscribe(RawSubscriber subscriber, String channel, Map<String, Object> ext) throws Exception {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("channel", "/meta/subscribe");
        message.put("subscription", channel);
        if (!ext.isEmpty()) {
            message.put("ext", ext);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> reply = RawClient.reply(subscriber.send(message), "/meta/subscribe");
        assertEquals(true, reply.get("successful"), "subscribed: " + reply);
        return reply;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> history(Map<String, Object> reply, String channel) {
        Map<String, Object> ext = (Map<String, Object>) reply.get("ext");
        assertNotNull(ext, "ext of " + reply);
        Map<String, Object> outcome = (Map<String, Object>) ((Map<String, Object>) ext.get("history")).get(channel);
        assertNotNull(outcome, "history of " + channel + " in " + reply);
        return outcome;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> position(Map<String, Object> message) {
        Map<String, Object> ext = (Map<String, Object>) message.get("ext");
        assertNotNull(ext, "ext of " + message);
        return (Map<String, Object>) ext.get("position");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> data(Map<String, Object> message) {
        return (Map<String, Object>) message.get("data");
    }

    @SuppressWarnings("unchecked")
    private static long replayId(Map<String, Object> message) {
        Map<String, Object> event = (Map<String, Object>) data(message).get("event");
        assertNotNull(event, "data.event of " + message);
        assertFalse(message.get("ext") instanceof Map<?, ?> ext && ext.containsKey("position"),
                "a replay-dialect message has no position");
        return ((Number) event.get("replayId")).longValue();
    }
}
