package io.bayeux.interop;

import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSessionChannel;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.transport.ClientTransport;
import io.bayeux.client.transport.LongPollingTransport;
import io.bayeux.client.transport.WebSocketTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * This project's Java client against the demo server, over WebSocket and long-polling, now that
 * sessions are bound to the browser cookie: it keeps the cookie, so its one session works from
 * the handshake to the disconnect (pub/sub, wildcards, a remote call).
 */
class ProjectJavaClientIT {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final ClientConfig config = ClientConfig.builder().build();
    private final List<BayeuxClient> clients = new ArrayList<>();
    private InteropServer server;

    @BeforeEach
    void start() {
        server = new InteropServer();
    }

    @AfterEach
    void stop() {
        clients.forEach(BayeuxClient::close);
        server.close();
    }

    private record Connected(BayeuxClient client, List<Message> handshakes, List<Message> failedConnects) {
    }

    private Connected connected(String transportName) throws InterruptedException {
        ClientTransport transport = transportName.equals(WebSocketTransport.NAME) ? new WebSocketTransport(config) : new LongPollingTransport(config);
        BayeuxClient client = new BayeuxClient(server.uri().toString(), config, transport);
        clients.add(client);
        List<Message> handshakes = new CopyOnWriteArrayList<>();
        List<Message> failedConnects = new CopyOnWriteArrayList<>();
        client.getChannel(Channel.META_HANDSHAKE).addListener((ClientSessionChannel.MessageListener) (channel, message) -> handshakes.add(message));
        client.getChannel(Channel.META_CONNECT).addListener((ClientSessionChannel.MessageListener) (channel, message) -> {
            if (!message.isSuccessful()) {
                failedConnects.add(message);
            }
        });
        client.handshake();
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), () -> "not connected: " + client);
        assertEquals(transportName, client.getTransportName());
        return new Connected(client, handshakes, failedConnects);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void oneSessionCarriesPubSubWildcardsAndARemoteCall(String transport) throws Exception {
        Connected alice = connected(transport);
        Connected bob = connected(transport);
        if (transport.equals("long-polling")) {
            assertNotNull(alice.client().getCookie("BAYEUX_BROWSER"), "the client keeps the browser cookie");
        }

        BlockingQueue<Message> received = new LinkedBlockingQueue<>();
        BlockingQueue<Message> subscribed = new LinkedBlockingQueue<>();
        bob.client().getChannel("/chat/*").subscribe((channel, message) -> received.add(message), subscribed::add);
        assertTrue(next(subscribed).isSuccessful());

        BlockingQueue<Message> published = new LinkedBlockingQueue<>();
        alice.client().getChannel("/chat/room").publish(Map.of("text", "hi"), published::add);
        assertTrue(next(published).isSuccessful());
        Message message = next(received);
        assertEquals("/chat/room", message.getChannel());
        assertEquals(Map.of("text", "hi"), message.getData());

        BlockingQueue<Message> answers = new LinkedBlockingQueue<>();
        alice.client().remoteCall("echo", Map.of("n", 7), answers::add);
        assertEquals(Map.of("n", 7), next(answers).getData());

        for (Connected c : List.of(alice, bob)) {
            assertEquals(1, c.handshakes().size(), () -> "handshaken again: " + c.handshakes());
            assertEquals(List.of(), c.failedConnects());
            assertNotNull(server.server().bayeux().getSession(c.client().getId()));
        }
        BlockingQueue<Message> disconnected = new LinkedBlockingQueue<>();
        alice.client().disconnect(disconnected::add);
        assertTrue(next(disconnected).isSuccessful());
        assertTrue(alice.client().waitFor(WAIT, BayeuxClient.State.DISCONNECTED));
    }

    private static <T> T next(BlockingQueue<T> queue) throws InterruptedException {
        T element = queue.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(element, "nothing arrived within " + WAIT);
        return element;
    }
}
