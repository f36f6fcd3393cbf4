package io.bayeux.client;

import io.bayeux.api.Message;
import io.bayeux.api.server.Authorizer;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.SecurityPolicy;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.BayeuxServerConfig;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.bayeux.client.Clients.WAIT;
import static io.bayeux.client.Clients.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What goes wrong on the server reaches the application: failed replies, end states, timeouts. */
class ErrorsIT {
    /** Several event loops, so that a reply and the client's own bookkeeping may run on different threads. */
    @RegisterExtension
    final ServerAndClients fixture = new ServerAndClients();
    private final ClientConfig config = ClientConfig.builder().eventLoopGroup(fixture.eventLoopGroup(4)).build();

    @BeforeEach
    void start() {
        fixture.start();
    }

    private BayeuxClient client(String transport) {
        return fixture.client(transport, config);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void aPublishTheAuthorizerDeniesFailsWithTheReason(String transport) throws Exception {
        fixture.server().bayeux().createChannelIfAbsent("/readonly").getReference().addAuthorizer((operation, channel, session, message) ->
                operation == Authorizer.Operation.PUBLISH ? Authorizer.Result.deny("read_only") : Authorizer.Result.grant());
        BayeuxClient client = Clients.connect(client(transport));

        BlockingQueue<Message> reply = new LinkedBlockingQueue<>();
        client.getChannel("/readonly").publish(Map.of("text", "nope"), reply::add);

        Message failed = next(reply);
        assertFalse(failed.isSuccessful());
        assertEquals("403:read_only:publish_denied", failed.get(Message.ERROR_FIELD));
        assertEquals("/readonly", failed.getChannel());
        assertTrue(client.isConnected(), "a denied publish costs the session nothing");

        BlockingQueue<Message> subscribed = new LinkedBlockingQueue<>();
        client.getChannel("/readonly").subscribe((channel, message) -> {
        }, subscribed::add);
        assertTrue(next(subscribed).isSuccessful(), "subscribing is still allowed");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void aHandshakeTheSecurityPolicyDeniesEndsDisconnectedWithTheError(String transport) throws Exception {
        fixture.server().bayeux().setSecurityPolicy(new SecurityPolicy() {
            @Override
            public boolean canHandshake(BayeuxServer bayeux, ServerSession session, ServerMessage message) {
                return false;
            }
        });
        // Several times: the reply's callback must never lose a race against the client's cleanup.
        for (int i = 0; i < 20; i++) {
            BayeuxClient client = client(transport);
            BlockingQueue<Message> reply = new LinkedBlockingQueue<>();
            client.handshake(null, reply::add);

            Message denied = next(reply);
            assertEquals(io.bayeux.api.Channel.META_HANDSHAKE, denied.getChannel());
            assertFalse(denied.isSuccessful());
            assertEquals("403::handshake_denied", denied.get(Message.ERROR_FIELD), () -> "reply: " + denied);
            assertTrue(client.waitFor(WAIT, BayeuxClient.State.DISCONNECTED));
            assertNull(client.getId());
            assertTrue(reply.isEmpty(), () -> "one reply only: " + reply);
        }
    }

    @Test
    void waitForReturnsFalseWhenTheStateIsNotReachedInTime() throws Exception {
        BayeuxClient client = client("websocket");
        long start = System.nanoTime();
        assertFalse(client.waitFor(Duration.ofMillis(200), BayeuxClient.State.CONNECTED));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(200));
        assertTrue(client.isDisconnected());
    }

    @Test
    void waitForReturnsAsSoonAsTheStateIsReached() throws Exception {
        BayeuxClient client = client("websocket");
        client.handshake();
        long start = System.nanoTime();
        assertTrue(client.waitFor(Duration.ofSeconds(60), BayeuxClient.State.CONNECTED));
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        // Well before the 60 s deadline; not a speed bound (a first handshake on a busy machine,
        // with its classes to load, may take seconds).
        assertTrue(waited < 20_000, () -> "waited " + waited + " ms for a local handshake");
        assertNotNull(client.getId());
    }

    @Test
    void aSessionTheServerDisconnectsEndsDisconnectedAndDoesNotComeBack() throws Exception {
        // Over WebSocket the server pushes its /meta/disconnect at once. (Over long-polling it rides a
        // held connect, if one is held at that moment; otherwise the next connect learns the session is
        // unknown and the client handshakes again, as CometD's does: see the next test for that transport.)
        BayeuxClient client = Clients.connect(client("websocket"));
        ServerSession session = fixture.server().bayeux().getSession(client.getId());
        assertNotNull(session);

        session.disconnect();

        assertTrue(client.waitFor(WAIT, BayeuxClient.State.DISCONNECTED), () -> "still " + client);
        assertNull(client.getId());
        assertTrue(fixture.server().bayeux().getSessions().isEmpty(), () -> "a session came back: " + fixture.server().bayeux().getSessions());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void aSuccessfulConnectReplyAdvisingReconnectNoneEndsTheClient(String transport) throws Exception {
        // Connects held 100 ms only, so that the third reply comes soon.
        fixture.stopServer();
        fixture.start(server -> server
                .bayeuxConfig(BayeuxServerConfig.builder().timeout(Duration.ofMillis(100)).build()));
        AtomicInteger connects = new AtomicInteger();
        fixture.server().bayeux().addExtension(new BayeuxServer.Extension() {
            @Override
            public boolean sendMeta(ServerSession to, ServerMessage.Mutable message) {
                if (io.bayeux.api.Channel.META_CONNECT.equals(message.getChannel()) && connects.incrementAndGet() == 3) {
                    message.getAdvice(true).put(Message.RECONNECT_FIELD, Message.RECONNECT_NONE_VALUE);
                }
                return true;
            }
        });
        BayeuxClient client = Clients.connect(client(transport));

        assertTrue(client.waitFor(WAIT, BayeuxClient.State.DISCONNECTED), () -> "still " + client);
        assertNull(client.getId());
    }
}
