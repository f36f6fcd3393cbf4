package io.bayeux.client;

import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.Promise;
import io.bayeux.api.client.ClientSession;
import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.client.ext.RecoveryExtension;
import io.bayeux.server.QueueOverflow;
import io.bayeux.server.internal.ServerSessionImpl;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

import static io.bayeux.client.Clients.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RecoveryExtension} against the server's channel history, over both transports: a client
 * whose session is lost, or whose queue overflows, gets every message exactly once and in order
 * when the history covers the gap, and its application is told when it does not.
 */
class RecoveryIT {
    private static final String ROOM = "/chat/room";
    private final ClientConfig config = ClientConfig.builder()
            .backoffIncrement(Duration.ofMillis(50))
            .maxBackoff(Duration.ofMillis(200))
            .build();
    @RegisterExtension
    final ServerAndClients fixture = new ServerAndClients();

    private NettyBayeuxServer start(HistoryPolicy policy, UnaryOperator<NettyBayeuxServer.Builder> configure) {
        NettyBayeuxServer server = fixture.start(configure);
        server.bayeux().createChannelIfAbsent("/chat/**", channel -> channel.setHistory(policy));
        return server;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void aClientWhoseSessionIsLostGetsEveryMessageOnceInOrder(String transport) throws Exception {
        NettyBayeuxServer server = start(HistoryPolicy.of(1_000, Duration.ofMinutes(5)), UnaryOperator.identity());
        HandshakeGate gate = new HandshakeGate();
        BlockingQueue<String> outcomes = new LinkedBlockingQueue<>();
        BayeuxClient client = recoveringClient(transport, gate, (channel, outcome) -> outcomes.add(channel + " " + outcome));
        Received received = new Received();
        subscribe(client, ROOM, (channel, message) -> received.add(message));
        ServerChannel room = server.bayeux().getChannel(ROOM);
        for (int i = 0; i < 10; i++) {
            room.publish(null, i, Promise.noop());
        }
        received.await(10);
        String firstSession = client.getId();

        // The server forgets the session, as when it expired; the client's next handshake waits until 40 more were published.
        gate.close();
        forget(server, firstSession);
        for (int i = 10; i < 50; i++) {
            room.publish(null, i, Promise.noop());
        }
        gate.open();
        received.await(50);
        assertEquals("/chat/room Outcome[recovered=true, replayed=40, reason=null]", outcomes.poll(10, TimeUnit.SECONDS));
        assertNotEquals(firstSession, client.getId());
        room.publish(null, 50, Promise.noop());
        received.await(51);
        assertEquals(IntStream.range(0, 51).boxed().toList(), received.list(), "every message once, in order");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void aGapTheHistoryNoLongerCoversIsToldToTheApplicationAndNothingIsReplayed(String transport) throws Exception {
        NettyBayeuxServer server = start(HistoryPolicy.of(5, Duration.ofMinutes(5)), UnaryOperator.identity());
        HandshakeGate gate = new HandshakeGate();
        BlockingQueue<RecoveryExtension.Outcome> outcomes = new LinkedBlockingQueue<>();
        BayeuxClient client = recoveringClient(transport, gate, (channel, outcome) -> outcomes.add(outcome));
        Received received = new Received();
        subscribe(client, ROOM, (channel, message) -> received.add(message));
        ServerChannel room = server.bayeux().getChannel(ROOM);
        room.publish(null, 0, Promise.noop());
        received.await(1);

        gate.close();
        forget(server, client.getId());
        for (int i = 1; i <= 20; i++) {
            room.publish(null, i, Promise.noop());
        }
        gate.open();
        assertEquals(new RecoveryExtension.Outcome(false, 0, "trimmed"), outcomes.poll(10, TimeUnit.SECONDS));
        room.publish(null, 21, Promise.noop());
        received.await(2);
        assertEquals(List.of(0, 21), received.list(), "nothing replayed as if it were complete");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void aMessageThatComesAfterALaterOneOfItsChannelIsDeliveredNotDroppedAsSeen(String transport) throws Exception {
        NettyBayeuxServer server = start(HistoryPolicy.of(100, Duration.ofMinutes(5)), UnaryOperator.identity());
        BayeuxClient client = recoveringClient(transport, new HandshakeGate(), (channel, outcome) -> {
        });
        Received received = new Received();
        subscribe(client, ROOM, (channel, message) -> received.add(message));
        ServerChannel room = server.bayeux().getChannel(ROOM);
        room.publish(null, 0, Promise.noop());
        received.await(1);

        // The session is sent message 1 after message 2, as when two replies overtake each other
        // (or live messages come before a replay).
        ServerSession session = server.bayeux().getSession(client.getId());
        AtomicReference<ServerMessage> held = new AtomicReference<>();
        session.addExtension(new ServerSession.Extension() {
            @Override
            public ServerMessage send(ServerSession to, ServerMessage message) {
                boolean first = ROOM.equals(message.getChannel()) && Integer.valueOf(1).equals(message.getData());
                return first && held.compareAndSet(null, message) ? null : message;
            }
        });
        room.publish(null, 1, Promise.noop());
        room.publish(null, 2, Promise.noop());
        received.await(2);
        ServerMessage.Mutable late = server.bayeux().newMessage();
        late.putAll(held.get());
        session.deliver(null, late, Promise.noop());
        received.await(3);
        room.publish(null, 3, Promise.noop());
        received.await(4);
        assertEquals(List.of(0, 2, 1, 3), received.list(), "the late message once, nothing dropped");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void aSessionWhoseQueueOverflowsRecoversWhatHistoryHoldsAndHearsOfTheRest(String transport) throws Exception {
        NettyBayeuxServer server = start(HistoryPolicy.of(100, Duration.ofMinutes(5)), b -> b.maxQueue(10, QueueOverflow.DISCONNECT));
        BayeuxClient client = fixture.client(transport, config);
        RecoveryExtension recovery = new RecoveryExtension();
        Map<String, RecoveryExtension.Outcome> outcomes = new ConcurrentHashMap<>();
        CountDownLatch told = new CountDownLatch(2);
        recovery.addListener((channel, outcome) -> {
            outcomes.put(channel, outcome);
            told.countDown();
        });
        client.addExtension(recovery);
        List<Object> errors = connectErrors(client);
        MetaTrace trace = new MetaTrace();
        client.addExtension(trace);
        Clients.connect(client);
        Received received = new Received();
        subscribe(client, ROOM, (channel, message) -> received.add(message));
        subscribe(client, "/news", (channel, message) -> {
        });
        String firstSession = client.getId();

        ServerSession session = server.bayeux().getSession(firstSession);
        ServerChannel room = server.bayeux().getChannel(ROOM);
        ServerChannel news = server.bayeux().getChannel("/news");
        session.startBatch(); // everything is queued before anything can leave: the queue overflows
        for (int i = 0; i < 50; i++) {
            room.publish(null, i, Promise.noop());
            news.publish(null, i, Promise.noop());
        }
        session.endBatch();

        assertTrue(told.await(10, TimeUnit.SECONDS), "outcomes " + outcomes + ", connect errors " + errors);
        received.await(50);
        assertTrue(errors.contains(io.bayeux.server.internal.QueueOverflowPolicy.QUEUE_FULL), "the client was told why: " + errors + "\n" + trace);
        assertEquals(new RecoveryExtension.Outcome(true, outcomes.get(ROOM).replayed(), null), outcomes.get(ROOM));
        assertEquals(new RecoveryExtension.Outcome(false, 0, RecoveryExtension.NO_HISTORY), outcomes.get("/news"), "a channel without history lost messages");
        assertEquals(IntStream.range(0, 50).boxed().toList(), received.list(), "every message of the room once, in order");
        assertNotEquals(firstSession, client.getId());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void messagesThatFollowAReplayLargerThanTheQueueBoundDoNotOverflowIt(String transport) throws Exception {
        NettyBayeuxServer server = start(HistoryPolicy.of(100, Duration.ofMinutes(5)), b -> b.maxQueue(10, QueueOverflow.DISCONNECT));
        BlockingQueue<RecoveryExtension.Outcome> outcomes = new LinkedBlockingQueue<>();
        HandshakeGate gate = new HandshakeGate();
        BayeuxClient client = recoveringClient(transport, gate, (channel, outcome) -> outcomes.add(outcome));
        Received received = new Received();
        subscribe(client, ROOM, (channel, message) -> received.add(message));
        ServerChannel room = server.bayeux().getChannel(ROOM);
        room.publish(null, 0, Promise.noop());
        received.await(1);
        String firstSession = client.getId();

        // The client's next session holds its messages from its start: what its recovery replays
        // (40 messages, past the bound of 10) and 5 live ones after it wait in its queue together.
        BlockingQueue<ServerSession> next = new LinkedBlockingQueue<>();
        server.bayeux().addListener(new io.bayeux.api.server.BayeuxServer.SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, io.bayeux.api.server.ServerMessage message) {
                session.startBatch();
                next.add(session);
            }

            @Override
            public void sessionRemoved(ServerSession session, io.bayeux.api.server.ServerMessage message, boolean timeout) {
            }
        });
        CountDownLatch resubscribed = new CountDownLatch(1);
        room.addListener((ServerChannel.SubscriptionListener) new ServerChannel.SubscriptionListener() {
            @Override
            public void subscribed(ServerSession session, ServerChannel channel, io.bayeux.api.server.ServerMessage message) {
                resubscribed.countDown();
            }

            @Override
            public void unsubscribed(ServerSession session, ServerChannel channel, io.bayeux.api.server.ServerMessage message) {
            }
        });
        // The client's next handshake waits until the 40 were published.
        gate.close();
        forget(server, firstSession);
        for (int i = 1; i <= 40; i++) {
            room.publish(null, i, Promise.noop());
        }
        gate.open();
        ServerSession second = next.poll(10, TimeUnit.SECONDS);
        assertNotNull(second, "handshook again");
        assertTrue(resubscribed.await(10, TimeUnit.SECONDS), "subscribed again");
        for (int i = 41; i <= 45; i++) {
            room.publish(null, i, Promise.noop());
        }
        second.endBatch();
        assertEquals(new RecoveryExtension.Outcome(true, 40, null), outcomes.poll(10, TimeUnit.SECONDS));
        received.await(46);
        assertEquals(IntStream.rangeClosed(0, 45).boxed().toList(), received.list(), "every message once, in order");
        assertEquals(second.getId(), client.getId(), "no second overflow");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void aClientReadingAStreamThatOverflowsItsQueueGetsEveryMessageOnceInOrder(String transport) throws Exception {
        NettyBayeuxServer server = start(HistoryPolicy.of(10_000, Duration.ofMinutes(5)), b -> b.maxQueue(20, QueueOverflow.DISCONNECT));
        List<RecoveryExtension.Outcome> outcomes = new CopyOnWriteArrayList<>();
        BayeuxClient client = recoveringClient(transport, new HandshakeGate(), (channel, outcome) -> outcomes.add(outcome));
        List<Object> errors = connectErrors(client);
        Received received = new Received();
        subscribe(client, ROOM, (channel, message) -> received.add(message));
        String firstSession = client.getId();

        // Published as fast as one thread can while the client reads: its queue of 20 overflows,
        // drains, and overflows again.
        int total = 3_000;
        ServerChannel room = server.bayeux().getChannel(ROOM);
        Thread publisher = Thread.ofPlatform().name("publisher").start(() -> {
            for (int i = 0; i < total; i++) {
                room.publish(null, i, Promise.noop());
            }
        });
        publisher.join(20_000);
        received.await(total);
        assertEquals(IntStream.range(0, total).boxed().toList(), received.list(), "every message once, in order");
        assertTrue(errors.contains(io.bayeux.server.internal.QueueOverflowPolicy.QUEUE_FULL), "the queue overflowed: " + errors);
        assertNotEquals(firstSession, client.getId());
        assertTrue(outcomes.stream().allMatch(RecoveryExtension.Outcome::recovered), "every recovery recovered: " + outcomes);
    }

    /** The errors of {@code client}'s unsuccessful {@code /meta/connect} replies, as they come. */
    /** What the client sent and received, in order, for a failure's message. */
    private static final class MetaTrace implements ClientSession.Extension {
        private final long start = System.nanoTime();
        private final List<String> lines = new CopyOnWriteArrayList<>();

        private void add(String direction, Message message) {
            Object data = message.getData();
            lines.add(String.format("%6.1f ms %s %s %s%s", (System.nanoTime() - start) / 1e6, direction, message.getChannel(),
                    message.isMeta() ? message.toString() : "data=" + data,
                    message.isMeta() ? "" : " (" + Thread.currentThread().getName() + ")"));
        }

        @Override
        public boolean rcv(ClientSession session, Message.Mutable message) {
            add("<-", message);
            return true;
        }

        @Override
        public boolean rcvMeta(ClientSession session, Message.Mutable message) {
            add("<-", message);
            return true;
        }

        @Override
        public boolean sendMeta(ClientSession session, Message.Mutable message) {
            add("->", message);
            return true;
        }

        @Override
        public String toString() {
            return String.join("\n", lines);
        }
    }

    private static List<Object> connectErrors(BayeuxClient client) {
        List<Object> errors = new CopyOnWriteArrayList<>();
        client.getChannel(Channel.META_CONNECT).addListener((io.bayeux.api.client.ClientSessionChannel.MessageListener) (channel, message) -> {
            if (!message.isSuccessful()) {
                errors.add(message.get(Message.ERROR_FIELD));
            }
        });
        return errors;
    }

    /** A connected client with recovery telling {@code listener}, whose handshakes {@code gate} holds when closed. */
    private BayeuxClient recoveringClient(String transport, HandshakeGate gate, RecoveryExtension.Listener listener) throws InterruptedException {
        BayeuxClient client = fixture.client(transport, config);
        RecoveryExtension recovery = new RecoveryExtension();
        recovery.addListener(listener);
        client.addExtension(recovery);
        client.addExtension(gate);
        return Clients.connect(client);
    }

    /** The server forgets a session: its client is told {@code 402::session_unknown}, as after an expiry. */
    private static void forget(NettyBayeuxServer server, String clientId) {
        ((ServerSessionImpl) server.bayeux().getSession(clientId)).disconnect("402::session_unknown");
    }

    /** The integers received, in order. */
    private static final class Received {
        private final List<Integer> values = new CopyOnWriteArrayList<>();

        void add(Message message) {
            synchronized (this) {
                values.add(((Number) message.getData()).intValue());
                notifyAll();
            }
        }

        synchronized void await(int count) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (values.size() < count) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    throw new AssertionError("received " + values.size() + " of " + count + ": " + values);
                }
                wait(left);
            }
        }

        List<Integer> list() {
            return List.copyOf(values);
        }
    }

    /** Holds the client's handshakes while closed (at most 15 s): the test decides when the client comes back. */
    private static final class HandshakeGate implements ClientSession.Extension {
        private volatile CountDownLatch gate = new CountDownLatch(0);

        void close() {
            gate = new CountDownLatch(1);
        }

        void open() {
            gate.countDown();
        }

        @Override
        public boolean sendMeta(ClientSession session, Message.Mutable message) {
            if (Channel.META_HANDSHAKE.equals(message.getChannel())) {
                try {
                    gate.await(15, TimeUnit.SECONDS);
                } catch (InterruptedException x) {
                    Thread.currentThread().interrupt();
                }
            }
            return true;
        }
    }
}
