package io.bayeux.client;

import io.bayeux.api.Promise;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import static io.bayeux.client.Clients.WAIT;
import static io.bayeux.client.Clients.next;
import static io.bayeux.client.Clients.subscribe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A server that goes away and comes back on the same port: the client finds its way back by itself. */
class ReconnectIT {
    private final ClientConfig config = ClientConfig.builder()
            .backoffIncrement(Duration.ofMillis(100))
            .maxBackoff(Duration.ofSeconds(1))
            .build();
    @RegisterExtension
    final ServerAndClients fixture = new ServerAndClients();

    /** Starts a server on {@code port} whose subscriptions to {@code /news} land in {@code subscribed}. */
    private NettyBayeuxServer startServer(int port, BlockingQueue<String> subscribed) {
        return fixture.start(server -> server.port(port).service(bayeux -> bayeux.addListener(new BayeuxServer.SubscriptionListener() {
            @Override
            public void subscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
                subscribed.add(session.getId() + " " + channel.getId());
            }

            @Override
            public void unsubscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
            }
        })));
    }

    private void publishNews(Object data) {
        fixture.server().bayeux().createChannelIfAbsent("/news").getReference().publish(null, Map.of("n", data), Promise.noop());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void afterAServerRestartTheClientHandshakesAgainResubscribesAndReceives(String transport) throws Exception {
        BlockingQueue<String> subscribed = new LinkedBlockingQueue<>();
        int port = startServer(0, subscribed).port();
        BayeuxClient client = fixture.client(transport, config);
        Clients.connect(client);
        String firstId = client.getId();
        BlockingQueue<Object> news = new LinkedBlockingQueue<>();
        subscribe(client, "/news", (channel, message) -> news.add(message.getData()));
        assertEquals(firstId + " /news", next(subscribed));
        publishNews(1);
        assertEquals(Map.of("n", 1), next(news));

        fixture.stopServer();
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.UNCONNECTED, BayeuxClient.State.REHANDSHAKING),
                () -> "the client did not notice: " + client);
        startServer(port, subscribed);

        String resubscription = next(subscribed);
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), () -> "not connected again: " + client);
        String secondId = client.getId();
        assertNotNull(secondId);
        assertNotEquals(firstId, secondId, "a new session");
        assertEquals(secondId + " /news", resubscription, "the application's subscription was made again");
        assertEquals(transport, client.getTransportName());
        publishNews(2);
        assertEquals(Map.of("n", 2), next(news));
        assertTrue(news.isEmpty() && subscribed.isEmpty(), () -> "more than expected: " + news + " " + subscribed);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void aReHandshakeWhoseConnectionDropsIsSentAgain(String transport) throws Exception {
        BlockingQueue<String> subscribed = new LinkedBlockingQueue<>();
        int port = startServer(0, subscribed).port();
        RecordingTransport recording = new RecordingTransport(Clients.transport(transport, config));
        BayeuxClient client = fixture.client(recording, config);
        Clients.connect(client);
        String firstId = client.getId();

        fixture.stopServer();
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.UNCONNECTED, BayeuxClient.State.REHANDSHAKING));
        // The handshake that follows the unknown-session reply goes on an open connection, which then drops.
        recording.cutAfterSending(io.bayeux.api.Channel.META_HANDSHAKE);
        startServer(port, subscribed);

        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), () -> "stuck: " + client);
        assertNotEquals(firstId, client.getId());
        long handshakes = recording.sends.stream().filter(batch -> batch.contains(io.bayeux.api.Channel.META_HANDSHAKE)).count();
        assertTrue(handshakes >= 3, () -> "the lost handshake was not sent again: " + recording.sends);
    }
}
