package io.bayeux.client;

import io.bayeux.api.Message;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import static io.bayeux.client.Clients.WAIT;
import static io.bayeux.client.Clients.next;
import static io.bayeux.client.Clients.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The client against CometD's own server: publish/subscribe, wildcards, the echo service, disconnect. */
class CometDInteropIT {
    private final ClientConfig config = ClientConfig.builder().build();
    private final List<BayeuxClient> clients = new ArrayList<>();
    private CometDServer server;

    @BeforeEach
    void start() throws Exception {
        server = new CometDServer().start();
    }

    @AfterEach
    void stop() throws Exception {
        clients.forEach(BayeuxClient::close);
        server.close();
    }

    private BayeuxClient connected(String transport) throws InterruptedException {
        BayeuxClient client = Clients.client(server.uri(), config, Clients.transport(transport, config));
        clients.add(client);
        Clients.connect(client);
        assertEquals(transport, client.getTransportName());
        return client;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void publishedMessagesReachSubscribersOfTheChannelAndOfWildcards(String transport) throws Exception {
        BayeuxClient alice = connected(transport);
        BayeuxClient bob = connected(transport);
        BlockingQueue<Message> exact = new LinkedBlockingQueue<>();
        BlockingQueue<String> deep = new LinkedBlockingQueue<>();
        subscribe(bob, "/chat/room", (channel, message) -> exact.add(message));
        subscribe(bob, "/chat/**", (channel, message) -> deep.add(message.getChannel()));

        BlockingQueue<Message> published = new LinkedBlockingQueue<>();
        alice.getChannel("/chat/room").publish(Map.of("text", "hi"), published::add);
        assertTrue(next(published).isSuccessful());
        alice.getChannel("/chat/room/private").publish(Map.of("text", "psst"), published::add);
        assertTrue(next(published).isSuccessful());

        Message message = next(exact);
        assertEquals("/chat/room", message.getChannel());
        assertEquals(Map.of("text", "hi"), message.getData());
        assertEquals(List.of("/chat/room", "/chat/room/private"), List.of(next(deep), next(deep)));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void theEchoServiceAnswersARemoteCallAndAServiceChannelListener(String transport) throws Exception {
        BayeuxClient client = connected(transport);

        BlockingQueue<Message> answers = new LinkedBlockingQueue<>();
        client.remoteCall("echo", Map.of("n", 42), answers::add);
        Message answer = next(answers);
        assertTrue(answer.isSuccessful(), () -> "failed: " + answer);
        assertEquals(Map.of("n", 42), answer.getData());

        BlockingQueue<Object> echoes = new LinkedBlockingQueue<>();
        client.getChannel("/service/echo").addListener((io.bayeux.api.client.ClientSessionChannel.MessageListener) (channel, message) -> {
            if (message.getData() != null) {
                echoes.add(message.getData());
            }
        });
        client.getChannel("/service/echo").publish("ping");
        assertEquals("ping", next(echoes));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void disconnectEndsTheSessionOnTheServer(String transport) throws Exception {
        BayeuxClient client = connected(transport);
        String id = client.getId();
        assertTrue(server.bayeux().getSession(id) != null);

        BlockingQueue<Message> reply = new LinkedBlockingQueue<>();
        client.disconnect(reply::add);

        assertTrue(next(reply).isSuccessful());
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.DISCONNECTED));
        assertEquals(null, server.bayeux().getSession(id));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void theAckExtensionSpeaksCometDsAcknowledgedMessagesProtocol(String transport) throws Exception {
        server.bayeux().addExtension(new org.cometd.server.ext.AcknowledgedMessagesExtension());
        RecordingTransport recording = new RecordingTransport(Clients.transport(transport, config));
        BayeuxClient client = Clients.client(server.uri(), config, recording);
        clients.add(client);
        io.bayeux.client.ext.AckExtension ack = new io.bayeux.client.ext.AckExtension();
        client.addExtension(ack);
        Clients.connect(client);
        assertTrue(ack.isServerSupportingAcks());
        List<Integer> received = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.CountDownLatch all = new java.util.concurrent.CountDownLatch(100);
        java.util.Set<Integer> distinct = java.util.concurrent.ConcurrentHashMap.newKeySet();
        subscribe(client, "/acked", (channel, message) -> {
            int n = ((Number) message.getData()).intValue();
            received.add(n);
            if (distinct.add(n)) {
                all.countDown();
            }
        });

        var channel = server.bayeux().getChannel("/acked");
        for (int i = 0; i < 100; i++) {
            channel.publish(null, i, org.cometd.bayeux.Promise.noop());
            if (i % 25 == 12) {
                recording.cut();
            }
        }

        boolean done = all.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        // Nothing lost, in order. CometD's server writes the deliveries in frames of their own before the
        // connect reply that numbers their batch (messagesPerFrame defaults to 1): a cut between the two
        // makes it send them again, so over WebSocket a run may arrive twice (at least once, not exactly once).
        assertEquals(java.util.stream.IntStream.range(0, 100).boxed().toList(), received.stream().distinct().toList(),
                () -> "received " + received + (done ? "" : " (gave up waiting)") + ", distinct " + distinct.size());
        for (int i = 1; i < received.size(); i++) {
            int n = received.get(i);
            assertTrue(n == received.get(i - 1) + 1 || received.subList(0, i).contains(n),
                    () -> "out of order: " + received);
        }
        assertTrue(ack.getBatch() > 0, "the client acknowledged CometD's batches");
    }
}
