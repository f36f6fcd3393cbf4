package io.bayeux.client;

import io.bayeux.api.Promise;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
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
    private NettyBayeuxServer server;
    private BayeuxClient client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.stop();
        }
    }

    /** Starts a server on {@code port} whose subscriptions to {@code /news} land in {@code subscribed}. */
    private static NettyBayeuxServer startServer(int port, BlockingQueue<String> subscribed) {
        return NettyBayeuxServer.builder().port(port).service(bayeux -> bayeux.addListener(new BayeuxServer.SubscriptionListener() {
            @Override
            public void subscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
                subscribed.add(session.getId() + " " + channel.getId());
            }

            @Override
            public void unsubscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
            }
        })).build().start();
    }

    private void publishNews(Object data) {
        server.bayeux().createChannelIfAbsent("/news").getReference().publish(null, Map.of("n", data), Promise.noop());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void afterAServerRestartTheClientHandshakesAgainResubscribesAndReceives(String transport) throws Exception {
        BlockingQueue<String> subscribed = new LinkedBlockingQueue<>();
        server = startServer(0, subscribed);
        int port = server.port();
        client = Clients.client(server.uri(), config, Clients.transport(transport, config));
        Clients.connect(client);
        String firstId = client.getId();
        BlockingQueue<Object> news = new LinkedBlockingQueue<>();
        subscribe(client, "/news", (channel, message) -> news.add(message.getData()));
        assertEquals(firstId + " /news", next(subscribed));
        publishNews(1);
        assertEquals(Map.of("n", 1), next(news));

        server.stop();
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.UNCONNECTED, BayeuxClient.State.REHANDSHAKING),
                () -> "the client did not notice: " + client);
        server = startServer(port, subscribed);

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
        server = startServer(0, subscribed);
        int port = server.port();
        RecordingTransport recording = new RecordingTransport(Clients.transport(transport, config));
        client = Clients.client(server.uri(), config, recording);
        Clients.connect(client);
        String firstId = client.getId();

        server.stop();
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.UNCONNECTED, BayeuxClient.State.REHANDSHAKING));
        // The handshake that follows the unknown-session reply goes on an open connection, which then drops.
        recording.cutAfterSending(io.bayeux.api.Channel.META_HANDSHAKE);
        server = startServer(port, subscribed);

        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), () -> "stuck: " + client);
        assertNotEquals(firstId, client.getId());
        long handshakes = recording.sends.stream().filter(batch -> batch.contains(io.bayeux.api.Channel.META_HANDSHAKE)).count();
        assertTrue(handshakes >= 3, () -> "the lost handshake was not sent again: " + recording.sends);
    }
}
