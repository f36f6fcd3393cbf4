package io.bayeux.transport;

import io.bayeux.api.Channel;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.internal.ServerSessionImpl;
import io.bayeux.testing.Await;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The whole protocol over real sockets, long-polling and WebSocket. */
class ProtocolIT {
    @RegisterExtension
    final ServerPerTest server = new ServerPerTest();

    @ParameterizedTest(name = "websocket={0}")
    @ValueSource(booleans = {true, false})
    void handshakeSubscribePublishReceiveDisconnect(boolean websocket) throws Exception {
        try (RawClient alice = new RawClient(server.uri(), websocket).open();
             RawClient bob = new RawClient(server.uri(), websocket).open()) {
            assertEquals(true, alice.handshake().get("successful"));
            assertEquals(true, bob.handshake().get("successful"));
            RawClient.reply(alice.connect(), "/meta/connect");
            RawClient.reply(bob.connect(), "/meta/connect");
            assertEquals(true, RawClient.reply(bob.send(Map.of("channel", "/meta/subscribe", "subscription", "/chat/*")), "/meta/subscribe").get("successful"));

            // The next connect is held: over WebSocket it is sent without waiting; over HTTP it waits on its
            // own thread. Either way, alice publishes once the server holds it.
            CompletableFuture<List<Map<String, Object>>> held = new CompletableFuture<>();
            if (websocket) {
                bob.sendRaw("[{\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"id\":\"held\",\"clientId\":\"" + bob.clientId() + "\"}]");
            } else {
                Thread.ofPlatform().daemon().start(() -> {
                    try {
                        held.complete(bob.connect());
                    } catch (Exception x) {
                        held.completeExceptionally(x);
                    }
                });
            }
            ServerSessionImpl bobOnServer = (ServerSessionImpl) server.server().bayeux().getSession(bob.clientId());
            Await.until(Duration.ofSeconds(10), bobOnServer::isConnectHeld, () -> "bob's connect to be held: " + bobOnServer);
            Map<String, Object> reply = RawClient.reply(alice.send(Map.of("channel", "/chat/room", "data", Map.of("text", "hello"))), "/chat/room");
            assertEquals(true, reply.get("successful"));

            Map<String, Object> delivered;
            if (websocket) {
                delivered = bob.nextDelivery("/chat/room");
            } else {
                List<Map<String, Object>> messages = held.get(10, TimeUnit.SECONDS);
                delivered = messages.get(0);
                assertEquals("/meta/connect", messages.get(messages.size() - 1).get("channel"));
            }
            assertEquals(Map.of("text", "hello"), delivered.get("data"));
            assertNull(delivered.get("clientId"));
            assertEquals(true, RawClient.reply(bob.send(Map.of("channel", "/meta/disconnect")), "/meta/disconnect").get("successful"));
        }
    }

    @ParameterizedTest(name = "websocket={0}")
    @ValueSource(booleans = {true, false})
    void aConnectWhoseSessionIsRemovedWithAReasonWhileTheServerHandlesItIsToldTheReason(boolean websocket) throws Exception {
        try (RawClient client = new RawClient(server.uri(), websocket).open()) {
            client.handshake();
            RawClient.reply(client.connect(), "/meta/connect");
            ServerSession session = server.server().bayeux().getSession(client.clientId());
            // Removed after the connect found its session, before it is handled, as the
            // application's overflow policy may do on another thread at any moment.
            server.server().bayeux().addExtension(new BayeuxServer.Extension() {
                @Override
                public boolean rcvMeta(ServerSession from, ServerMessage.Mutable message) {
                    if (from == session && Channel.META_CONNECT.equals(message.getChannel())) {
                        session.disconnect("409::queue_full");
                    }
                    return true;
                }
            });

            Map<String, Object> reply = RawClient.reply(client.connect(), "/meta/connect");

            assertEquals("409::queue_full", reply.get("error"), "the client is told why: " + reply);
            assertEquals("handshake", ((Map<?, ?>) reply.get("advice")).get("reconnect"), reply.toString());
        }
    }
}
