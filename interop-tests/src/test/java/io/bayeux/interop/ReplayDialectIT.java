package io.bayeux.interop;

import jakarta.websocket.ContainerProvider;
import jakarta.websocket.WebSocketContainer;
import org.cometd.bayeux.Channel;
import org.cometd.bayeux.Message;
import org.cometd.bayeux.client.ClientSessionChannel;
import org.cometd.client.BayeuxClient;
import org.cometd.client.http.jetty.JettyHttpClientTransport;
import org.cometd.client.transport.ClientTransport;
import org.cometd.client.websocket.jakarta.WebSocketTransport;
import org.eclipse.jetty.client.HttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Salesforce's Streaming API {@code replay} dialect (docs/history.md, "The replay dialect"), as
 * EMP-Connector speaks it: CometD's Java client with a {@link ReplayExtension} written like
 * EMP-Connector's, against the demo started with {@code --history-size} {@value #HISTORY_SIZE},
 * which gives {@code /event/**} the dialect, over WebSocket and long-polling. A second CometD
 * client, without the extension, publishes.
 *
 * <p>No sleeps: "nothing else arrived" is proved by a fence, a live message published after the
 * subscription: the server queues a subscription's replay before anything published after it,
 * so once the fence is received whatever would have been replayed has been received too.
 */
class ReplayDialectIT {
    private static final long WAIT = 10;
    static final int HISTORY_SIZE = 5;
    private static final long NEW_EVENTS = -1L;
    private static final long ALL_RETAINED = -2L;

    enum Transport { WEBSOCKET, LONG_POLLING }

    private InteropServer server;
    private ScheduledExecutorService scheduler;
    private final List<HttpClient> httpClients = new ArrayList<>();
    private final List<BayeuxClient> clients = new ArrayList<>();

    @BeforeEach
    void start() {
        server = InteropServer.withHistory(HISTORY_SIZE, Duration.ofMinutes(5));
        scheduler = Executors.newSingleThreadScheduledExecutor();
    }

    @AfterEach
    void stop() throws Exception {
        for (BayeuxClient client : clients) {
            client.disconnect(2000);
        }
        for (HttpClient httpClient : httpClients) {
            httpClient.stop();
        }
        scheduler.shutdownNow();
        server.close();
    }

    /**
     * A CometD client with the replay extension, as EMP-Connector builds one: the application's
     * map of channels to replay ids, shared with the extension, and what it received.
     */
    private record Subscriber(BayeuxClient client, ReplayExtension replay, ConcurrentMap<String, Long> replayIds,
                              Message handshakeReply, BlockingQueue<Message> received) {
        /** The next message received, within the bounded wait. */
        Message next(String what) throws InterruptedException {
            Message message = received.poll(WAIT, TimeUnit.SECONDS);
            assertNotNull(message, "nothing received: expected " + what);
            return message;
        }

        /**
         * Subscribes as EMP-Connector's {@code subscribe(topic, replayFrom, consumer)} does: puts the
         * channel's starting id in the map, then subscribes; returns the subscribe reply.
         */
        Message subscribe(String channel, long replayFrom) throws Exception {
            replayIds.put(channel, replayFrom);
            CompletableFuture<Message> reply = new CompletableFuture<>();
            client.getChannel(channel).subscribe((c, message) -> received.add(message), reply::complete);
            return reply.get(WAIT, TimeUnit.SECONDS);
        }

        Message subscribed(String channel, long replayFrom) throws Exception {
            Message reply = subscribe(channel, replayFrom);
            assertTrue(reply.isSuccessful(), () -> "subscribe to " + channel + " from " + replayFrom + ": " + reply);
            return reply;
        }
    }

    private BayeuxClient newClient(Transport transport) throws Exception {
        ClientTransport clientTransport;
        Map<String, Object> options = new HashMap<>();
        if (transport == Transport.WEBSOCKET) {
            WebSocketContainer container = ContainerProvider.getWebSocketContainer();
            clientTransport = new WebSocketTransport(options, scheduler, container);
        } else {
            HttpClient httpClient = new HttpClient();
            httpClient.start();
            httpClients.add(httpClient);
            clientTransport = new JettyHttpClientTransport(options, httpClient);
        }
        BayeuxClient client = new BayeuxClient(server.uri().toString(), scheduler, clientTransport);
        clients.add(client);
        return client;
    }

    private Message handshake(BayeuxClient client, Transport transport) throws Exception {
        CompletableFuture<Message> handshake = new CompletableFuture<>();
        client.handshake(handshake::complete);
        Message reply = handshake.get(WAIT, TimeUnit.SECONDS);
        assertTrue(reply.isSuccessful(), reply::toString);
        assertTrue(client.waitFor(WAIT * 1000, BayeuxClient.State.CONNECTED), () -> "not connected: " + client);
        assertEquals(transport == Transport.WEBSOCKET ? "websocket" : "long-polling", client.getTransport().getName());
        return reply;
    }

    private Subscriber subscriber(Transport transport) throws Exception {
        BayeuxClient client = newClient(transport);
        ConcurrentMap<String, Long> replayIds = new ConcurrentHashMap<>();
        ReplayExtension replay = new ReplayExtension(replayIds);
        client.addExtension(replay);
        Message reply = handshake(client, transport);
        assertTrue(replay.isSupported(), () -> "the handshake reply does not say ext.replay: true: " + reply);
        return new Subscriber(client, replay, replayIds, reply, new LinkedBlockingQueue<>());
    }

    private BayeuxClient publisher(Transport transport) throws Exception {
        BayeuxClient client = newClient(transport);
        handshake(client, transport);
        return client;
    }

    /** Publishes and waits for the server's successful reply. */
    private static void publish(BayeuxClient publisher, String channel, Object data) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        publisher.getChannel(channel).publish(data, reply::complete);
        Message message = reply.get(WAIT, TimeUnit.SECONDS);
        assertTrue(message.isSuccessful(), () -> "publish to " + channel + ": " + message);
    }

    /** Publishes {@code {"text": "<prefix><i>"}} for i in [from, to], each after the previous one's reply. */
    private static void publishTexts(BayeuxClient publisher, String channel, String prefix, int from, int to) throws Exception {
        for (int i = from; i <= to; i++) {
            publish(publisher, channel, Map.of("text", prefix + i));
        }
    }

    /** The message's {@code data.event.replayId}: present, a JSON integer (EMP-Connector casts it to Long). */
    private static long replayIdOf(Message message) {
        Map<String, Object> data = message.getDataAsMap();
        assertNotNull(data, () -> "data is not an object: " + message);
        Object event = data.get("event");
        assertInstanceOf(Map.class, event, () -> "no data.event object: " + message);
        Object replayId = ((Map<?, ?>) event).get("replayId");
        assertInstanceOf(Long.class, replayId, () -> "data.event.replayId is not a JSON integer: " + message);
        return (Long) replayId;
    }

    private static Object textOf(Message message) {
        return message.getDataAsMap().get("text");
    }

    /**
     * Receives the messages {@code <prefix><from>..<prefix><to>} on {@code channel}, in that order,
     * each with a replay id above the one before; returns their replay ids.
     */
    private static List<Long> receiveTexts(Subscriber subscriber, String channel, String prefix, int from, int to, long after)
            throws InterruptedException {
        List<Long> ids = new ArrayList<>();
        long previous = after;
        for (int i = from; i <= to; i++) {
            Message message = subscriber.next(prefix + i);
            assertEquals(channel, message.getChannel(), message::toString);
            assertEquals(prefix + i, textOf(message), message::toString);
            long id = replayIdOf(message);
            assertTrue(id > previous, "replay id " + id + " of " + prefix + i + " is not above " + previous + ": " + message);
            ids.add(id);
            previous = id;
        }
        return ids;
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void theHandshakeReplyEchoesReplayTrue(Transport transport) throws Exception {
        Subscriber subscriber = subscriber(transport);
        Map<String, Object> ext = subscriber.handshakeReply().getExt();
        assertNotNull(ext, () -> "no ext in " + subscriber.handshakeReply());
        assertEquals(Boolean.TRUE, ext.get("replay"), () -> subscriber.handshakeReply().toString());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void minusOneDeliversOnlyWhatIsPublishedAfterTheSubscription(Transport transport) throws Exception {
        String channel = "/event/new";
        BayeuxClient publisher = publisher(transport);
        publishTexts(publisher, channel, "before", 1, 3);

        Subscriber subscriber = subscriber(transport);
        subscriber.subscribed(channel, NEW_EVENTS);
        publishTexts(publisher, channel, "after", 1, 2);

        // The first message received is the first one published after the subscription.
        List<Long> ids = receiveTexts(subscriber, channel, "after", 1, 2, Long.MIN_VALUE);
        assertEquals(ids.get(1), subscriber.replayIds().get(channel), "the extension remembers the last replay id");
        assertTrue(subscriber.received().isEmpty(), () -> "more received: " + subscriber.received());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void minusTwoReplaysEverythingRetainedInOrderThenTheNewOnes(Transport transport) throws Exception {
        String channel = "/event/all";
        int published = HISTORY_SIZE - 1;
        BayeuxClient publisher = publisher(transport);
        publishTexts(publisher, channel, "m", 1, published);

        Subscriber subscriber = subscriber(transport);
        subscriber.subscribed(channel, ALL_RETAINED);
        List<Long> replayed = receiveTexts(subscriber, channel, "m", 1, published, Long.MIN_VALUE);

        publishTexts(publisher, channel, "live", 1, 1);
        receiveTexts(subscriber, channel, "live", 1, 1, replayed.getLast());
        assertTrue(subscriber.received().isEmpty(), () -> "more received: " + subscriber.received());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aRememberedReplayIdResumesRightAfterItWithoutDuplicates(Transport transport) throws Exception {
        String channel = "/event/resume";
        int published = HISTORY_SIZE - 1;
        int remembered = 2;
        BayeuxClient publisher = publisher(transport);
        Subscriber first = subscriber(transport);
        first.subscribed(channel, NEW_EVENTS);
        publishTexts(publisher, channel, "m", 1, published);
        List<Long> ids = receiveTexts(first, channel, "m", 1, published, Long.MIN_VALUE);

        // A client that had received up to message k resumes from its replay id.
        Subscriber second = subscriber(transport);
        second.subscribed(channel, ids.get(remembered - 1));
        List<Long> resumed = receiveTexts(second, channel, "m", remembered + 1, published, ids.get(remembered - 1));
        assertEquals(ids.subList(remembered, published), resumed, "the same replay ids as delivered live");

        // The live fence follows at once: nothing was delivered twice, nothing before k + 1.
        publishTexts(publisher, channel, "live", 1, 1);
        long live = receiveTexts(second, channel, "live", 1, 1, resumed.getLast()).getFirst();
        assertEquals(live, second.replayIds().get(channel));
        assertTrue(second.received().isEmpty(), () -> "more received: " + second.received());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aClientWhoseSessionWasForgottenResubscribesFromItsRememberedIdAndGetsWhatItMissed(Transport transport) throws Exception {
        String channel = "/event/rejoin";
        BayeuxClient publisher = publisher(transport);
        Subscriber subscriber = subscriber(transport);
        BayeuxClient client = subscriber.client();
        BlockingQueue<Message> handshakes = new LinkedBlockingQueue<>();
        client.getChannel(Channel.META_HANDSHAKE).addListener((ClientSessionChannel.MessageListener) (c, message) -> handshakes.add(message));
        subscriber.subscribed(channel, NEW_EVENTS);
        publishTexts(publisher, channel, "m", 1, 2);
        List<Long> ids = receiveTexts(subscriber, channel, "m", 1, 2, Long.MIN_VALUE);
        String oldId = client.getId();

        // The server forgets the session, as after an expiry: the client handshakes again.
        CompletableFuture<Message> forgetting = new CompletableFuture<>();
        client.remoteCall("interop/forget", Map.of(), forgetting::complete);
        assertTrue(forgetting.get(WAIT, TimeUnit.SECONDS).isSuccessful());
        Message again = handshakes.poll(WAIT, TimeUnit.SECONDS);
        assertNotNull(again, "the client did not handshake again");
        assertTrue(again.isSuccessful(), again::toString);
        assertNotEquals(oldId, client.getId());
        assertTrue(subscriber.replay().isSupported(), again::toString);

        // Published while the new session has no subscription: missed.
        publishTexts(publisher, channel, "m", 3, 4);

        // EMP-Connector's resubscribe(): every topic again, from the replay id it remembers.
        assertEquals(ids.getLast(), subscriber.replayIds().get(channel));
        subscriber.subscribed(channel, subscriber.replayIds().get(channel));
        List<Long> missed = receiveTexts(subscriber, channel, "m", 3, 4, ids.getLast());
        publishTexts(publisher, channel, "live", 1, 1);
        receiveTexts(subscriber, channel, "live", 1, 1, missed.getLast());
        assertTrue(subscriber.received().isEmpty(), () -> "more received: " + subscriber.received());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aReplayIdTheHistoryNoLongerHoldsOrNeverHeldFailsTheSubscriptionAndDeliversNothing(Transport transport) throws Exception {
        String channel = "/event/trimmed";
        String fence = "/event/fence";
        int published = HISTORY_SIZE + 3;
        BayeuxClient publisher = publisher(transport);
        Subscriber witness = subscriber(transport);
        witness.subscribed(channel, NEW_EVENTS);
        publishTexts(publisher, channel, "m", 1, published);
        List<Long> ids = receiveTexts(witness, channel, "m", 1, published, Long.MIN_VALUE);

        // Message 2 was trimmed (only the last HISTORY_SIZE are kept): after message 1 cannot be replayed whole.
        long trimmed = ids.getFirst();
        long madeUp = ids.getLast() + 1000;
        for (long invalid : new long[]{trimmed, madeUp}) {
            Subscriber late = subscriber(transport);
            Message reply = late.subscribe(channel, invalid);
            assertFalse(reply.isSuccessful(), () -> "subscribe from " + invalid + " succeeded: " + reply);
            Object error = reply.get(Message.ERROR_FIELD);
            assertTrue(error instanceof String text && text.startsWith("400:"), () -> "subscribe from " + invalid + ": " + reply);

            // EMP-Connector keeps the failed channel in its map and sends it with every later
            // subscribe: a subscribe to another channel must still succeed, and its fence proves
            // that nothing of the failed channel was delivered.
            late.subscribed(fence, NEW_EVENTS);
            assertEquals(invalid, late.replayIds().get(channel), "the map still names the failed channel");
            publish(publisher, fence, Map.of("text", "fence"));
            Message first = late.next("the fence");
            assertEquals(fence, first.getChannel(), () -> "received before the fence: " + first);
            publishTexts(publisher, channel, "ignored", 1, 1);
            publish(publisher, fence, Map.of("text", "fence"));
            Message second = late.next("the second fence");
            assertEquals(fence, second.getChannel(), () -> "the failed subscription delivers: " + second);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void theReplayIdSitsBesideThePublishedDataWhichKeepsItsFields(Transport transport) throws Exception {
        String channel = "/event/data";
        BayeuxClient publisher = publisher(transport);
        Subscriber subscriber = subscriber(transport);
        subscriber.subscribed(channel, NEW_EVENTS);

        Map<String, Object> payload = Map.of("payload", Map.of("orderId", "A-17", "amount", 42L));
        publish(publisher, channel, payload);
        Message first = subscriber.next("the payload message");
        long firstId = replayIdOf(first);
        Map<String, Object> data = new HashMap<>(first.getDataAsMap());
        data.remove("event");
        assertEquals(payload, data, first::toString);

        Map<String, Object> text = Map.of("text", "hello", "from", "publisher");
        publish(publisher, channel, text);
        Message second = subscriber.next("the text message");
        assertTrue(replayIdOf(second) > firstId, second::toString);
        data = new HashMap<>(second.getDataAsMap());
        data.remove("event");
        assertEquals(text, data, second::toString);

        // Data that is not an object is carried as data.payload.
        publish(publisher, channel, "plain");
        Message third = subscriber.next("the plain string message");
        assertTrue(replayIdOf(third) > replayIdOf(second), third::toString);
        assertEquals("plain", third.getDataAsMap().get("payload"), third::toString);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aSubscribeCarryingTheWholeReplayMapReplaysOnlyTheChannelItSubscribes(Transport transport) throws Exception {
        String first = "/event/first";
        String second = "/event/second";
        BayeuxClient publisher = publisher(transport);
        publishTexts(publisher, first, "f", 1, 2);
        publishTexts(publisher, second, "s", 1, 2);

        Subscriber subscriber = subscriber(transport);
        subscriber.subscribed(first, ALL_RETAINED);
        receiveTexts(subscriber, first, "f", 1, 2, Long.MIN_VALUE);
        // EMP-Connector sends its whole map: {first: <last id received>, second: -2}.
        subscriber.subscribed(second, ALL_RETAINED);
        receiveTexts(subscriber, second, "s", 1, 2, Long.MIN_VALUE);

        publishTexts(publisher, first, "live", 1, 1);
        Message live = subscriber.next("the live message on " + first);
        assertEquals(first, live.getChannel(), () -> "expected the live message, got " + live);
        assertEquals("live1", textOf(live), live::toString);
        assertTrue(subscriber.received().isEmpty(), () -> "more received: " + subscriber.received());
    }
}
