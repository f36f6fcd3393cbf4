package io.bayeux.interop;

import io.bayeux.interop.CometDClients.Transport;
import org.cometd.bayeux.Channel;
import org.cometd.bayeux.Message;
import org.cometd.bayeux.client.ClientSessionChannel;
import org.cometd.client.BayeuxClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The official CometD Java client ({@code org.cometd.java}, 8.x), unmodified, against the demo
 * server, over WebSocket (Jakarta WebSocket on Tyrus) and long-polling (Jetty's HttpClient).
 */
class CometDJavaClientIT {
    private static final long WAIT = 10;

    private InteropServer server;
    private final CometDClients cometd = new CometDClients();

    @BeforeEach
    void start() {
        server = new InteropServer();
    }

    @AfterEach
    void stop() throws Exception {
        cometd.close();
        server.close();
    }

    private BayeuxClient newClient(Transport transport) throws Exception {
        return cometd.newClient(server.uri().toString(), transport);
    }

    private BayeuxClient connected(Transport transport) throws Exception {
        BayeuxClient client = newClient(transport);
        CompletableFuture<Message> handshake = new CompletableFuture<>();
        client.handshake(handshake::complete);
        Message reply = handshake.get(WAIT, TimeUnit.SECONDS);
        assertTrue(reply.isSuccessful(), reply::toString);
        assertTrue(client.waitFor(WAIT * 1000, BayeuxClient.State.CONNECTED), () -> "not connected: " + client);
        assertEquals(transport == Transport.WEBSOCKET ? "websocket" : "long-polling", client.getTransport().getName());
        return client;
    }

    private static void subscribe(BayeuxClient client, String channel, ClientSessionChannel.MessageListener listener) throws Exception {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        client.getChannel(channel).subscribe(listener, reply::complete);
        Message message = reply.get(WAIT, TimeUnit.SECONDS);
        assertTrue(message.isSuccessful(), message::toString);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void subscribersOfAChannelAndOfItsWildcardReceiveWhatIsPublished(Transport transport) throws Exception {
        BayeuxClient alice = connected(transport);
        BayeuxClient bob = connected(transport);
        BlockingQueue<Message> aliceGot = new LinkedBlockingQueue<>();
        BlockingQueue<Message> bobGot = new LinkedBlockingQueue<>();
        subscribe(alice, "/chat/java", (channel, message) -> aliceGot.add(message));
        subscribe(bob, "/chat/*", (channel, message) -> bobGot.add(message));

        CompletableFuture<Message> published = new CompletableFuture<>();
        alice.getChannel("/chat/java").publish(Map.of("text", "hello"), published::complete);
        Message publishReply = published.get(WAIT, TimeUnit.SECONDS);
        assertTrue(publishReply.isSuccessful(), publishReply::toString);

        Message toAlice = aliceGot.poll(WAIT, TimeUnit.SECONDS);
        assertNotNull(toAlice, "alice got nothing");
        assertEquals("/chat/java", toAlice.getChannel());
        assertEquals(Map.of("text", "hello"), toAlice.getDataAsMap());
        Message toBob = bobGot.poll(WAIT, TimeUnit.SECONDS);
        assertNotNull(toBob, "bob got nothing through /chat/*");
        assertEquals("/chat/java", toBob.getChannel());
        assertEquals(Map.of("text", "hello"), toBob.getDataAsMap());

        // Only the wildcard subscriber hears another room.
        bob.getChannel("/chat/other").publish(Map.of("text", "elsewhere"));
        Message other = bobGot.poll(WAIT, TimeUnit.SECONDS);
        assertNotNull(other, "bob got nothing on /chat/other");
        assertEquals("/chat/other", other.getChannel());
        assertNull(aliceGot.poll(200, TimeUnit.MILLISECONDS), "alice is not subscribed to /chat/other");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void remoteCallsToTheEchoServiceResolveWithTheData(Transport transport) throws Exception {
        BayeuxClient client = connected(transport);
        String id = client.getId();
        for (int i = 0; i < 3; i++) {
            CompletableFuture<Message> result = new CompletableFuture<>();
            Map<String, Object> data = Map.of("n", (long) i, "text", "ping");
            client.remoteCall("echo", data, result::complete);
            Message reply = result.get(WAIT, TimeUnit.SECONDS);
            assertTrue(reply.isSuccessful(), reply::toString);
            assertEquals("/service/echo", reply.getChannel());
            assertEquals(data, reply.getDataAsMap());
        }
        // The extra plain publish reply neither broke the connection nor the session.
        assertTrue(client.isConnected());
        assertEquals(id, client.getId());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aForgottenSessionMakesTheClientHandshakeAgainAndReceiveAfterResubscribing(Transport transport) throws Exception {
        BayeuxClient client = newClient(transport);
        BlockingQueue<Message> received = new LinkedBlockingQueue<>();
        BlockingQueue<Message> handshakes = new LinkedBlockingQueue<>();
        BlockingQueue<Message> subscribed = new LinkedBlockingQueue<>();
        List<Message> connectFailures = new CopyOnWriteArrayList<>();
        ClientSessionChannel.MessageListener listener = (channel, message) -> received.add(message);
        // The usual application pattern: (re)subscribe whenever a handshake succeeds.
        client.getChannel(Channel.META_HANDSHAKE).addListener((ClientSessionChannel.MessageListener) (channel, message) -> {
            handshakes.add(message);
            if (message.isSuccessful()) {
                client.getChannel("/chat/*").subscribe(listener, subscribed::add);
            }
        });
        client.getChannel(Channel.META_CONNECT).addListener((ClientSessionChannel.MessageListener) (channel, message) -> {
            if (!message.isSuccessful()) {
                connectFailures.add(message);
            }
        });
        client.handshake();
        Message first = handshakes.poll(WAIT, TimeUnit.SECONDS);
        assertNotNull(first, "no handshake");
        assertTrue(first.isSuccessful(), first::toString);
        Message subscription = subscribed.poll(WAIT, TimeUnit.SECONDS);
        assertTrue(subscription != null && subscription.isSuccessful(), String.valueOf(subscription));
        String oldId = client.getId();

        CompletableFuture<Message> forgetting = new CompletableFuture<>();
        client.remoteCall("interop/forget", Map.of(), forgetting::complete);
        assertTrue(forgetting.get(WAIT, TimeUnit.SECONDS).isSuccessful());

        Message second = handshakes.poll(WAIT, TimeUnit.SECONDS);
        assertNotNull(second, "the client did not handshake again");
        assertTrue(second.isSuccessful(), second::toString);
        assertNotEquals(oldId, client.getId());
        assertTrue(connectFailures.stream().anyMatch(m -> "402::session_unknown".equals(m.get(Message.ERROR_FIELD))), connectFailures::toString);
        assertNull(server.server().bayeux().getSession(oldId));
        Message resubscription = subscribed.poll(WAIT, TimeUnit.SECONDS);
        assertTrue(resubscription != null && resubscription.isSuccessful(), String.valueOf(resubscription));
        assertTrue(client.waitFor(WAIT * 1000, BayeuxClient.State.CONNECTED));

        server.server().bayeux().createChannelIfAbsent("/chat/after").getReference().publish(null, Map.of("text", "still here"));
        Message message = received.poll(WAIT, TimeUnit.SECONDS);
        assertNotNull(message, "nothing received after the new handshake");
        assertEquals(Map.of("text", "still here"), message.getDataAsMap());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void disconnectEndsTheSessionOnTheServer(Transport transport) throws Exception {
        BayeuxClient client = connected(transport);
        String id = client.getId();
        assertNotNull(server.server().bayeux().getSession(id));
        assertTrue(client.disconnect(WAIT * 1000), "disconnect did not complete");
        assertTrue(client.isDisconnected());
        // The server removes the session before it answers the disconnect.
        assertNull(server.server().bayeux().getSession(id), "the server still has the session");
    }
}
