package io.bayeux.auth.jwt;

import io.bayeux.testing.MutableClock;
import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSessionChannel;
import io.bayeux.api.server.ServerSession;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.ext.TokenExtension;
import io.bayeux.testing.Await;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static io.bayeux.auth.jwt.Clients.WAIT;
import static io.bayeux.auth.jwt.Clients.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Java client's {@link TokenExtension} after the server cut its session off for a token that
 * was not refreshed in time (on a clock the test moves: tokens last 600 s, 60 s of skew, 30 s of
 * grace): the client's handshake with the expired token is refused, and the extension asks its
 * refresher once for a new token and handshakes again with it.
 */
class ExpiredSessionRecoveryIT {
    private static final String EXPIRED_REFUSAL = "403:" + TokenRejectedException.EXPIRED + ":handshake_denied";

    private final MutableClock clock = new MutableClock(Instant.now());
    private NettyBayeuxServer server;
    private JwtAuthentication authentication;
    private BayeuxClient client;
    private final BlockingQueue<Message> handshakes = new LinkedBlockingQueue<>();
    private final AtomicInteger refresherCalls = new AtomicInteger();

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (authentication != null) {
            authentication.close();
        }
        if (server != null) {
            server.stop();
        }
    }

    /** Connects alice, subscribed to /chat/room, with {@code refresher} counted; no token is asked for before the test sweeps. */
    private void connect(String transport, Supplier<String> refresher) throws InterruptedException {
        connect(transport, refresher, false);
    }

    /** {@code atHand}: the refresher's future is complete when returned, so the extension handshakes on the client's own thread. */
    private void connect(String transport, Supplier<String> refresher, boolean atHand) throws InterruptedException {
        JwtConfig config = JwtConfig.builder().hmacSecret(Tokens.SECRET).clock(clock).sweepInterval(Duration.ZERO).build();
        server = NettyBayeuxServer.builder().port(0).service(bayeux -> authentication = JwtAuthentication.install(bayeux, config)).build().start();
        client = Clients.client(server.uri(), transport, ClientConfig.builder().build());
        client.addExtension(new TokenExtension(token(clock.instant()), () -> {
            refresherCalls.incrementAndGet();
            return atHand ? CompletableFuture.completedFuture(refresher.get()) : CompletableFuture.supplyAsync(refresher);
        }));
        client.getChannel(Channel.META_HANDSHAKE).addListener((ClientSessionChannel.MessageListener) (channel, message) -> handshakes.add(message));
        client.handshake();
        assertTrue(next(handshakes).isSuccessful());
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), client::toString);
        BlockingQueue<Message> subscribed = new LinkedBlockingQueue<>();
        client.getChannel("/chat/room").subscribe((channel, message) -> { }, subscribed::add);
        assertTrue(next(subscribed).isSuccessful());
    }

    /** Alice's token, allowed on /chat/**, valid for 600 s from {@code issued}. */
    private static String token(Instant issued) {
        return Tokens.hs256(Tokens.claims("alice", issued).claim("subscribe", List.of("/chat/**")).build());
    }

    /** Past the grace period without a refresh: the server disconnects the session, and the client handshakes again with its expired token. */
    private String cutOff() {
        String id = client.getId();
        clock.advance(Duration.ofSeconds(691));
        authentication.sweep();
        Await.until(WAIT, () -> server.bayeux().getSession(id) == null, () -> "session " + id + " still there");
        return id;
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void aSessionCutOffAfterTheGracePeriodComesBackByItselfWithAFreshToken(String transport) throws Exception {
        connect(transport, () -> token(clock.instant()));
        String old = cutOff();

        Message refused = next(handshakes);
        assertEquals(EXPIRED_REFUSAL, refused.get(Message.ERROR_FIELD));
        Message admitted = next(handshakes);
        assertTrue(admitted.isSuccessful(), admitted::toString);
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), client::toString);
        assertNotEquals(old, client.getId());
        assertEquals(1, refresherCalls.get());
        ServerSession session = server.bayeux().getSession(client.getId());
        assertEquals("alice", session.getAttribute(JwtAuthentication.USER_ID_ATTRIBUTE));
        Await.until(WAIT, () -> server.bayeux().getChannel("/chat/room").getSubscribers().contains(session),
                () -> "not subscribed again to /chat/room");
        assertEquals(1, authentication.trackedSessions(), "the new session is on the new token's deadline");
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void aTokenAtHandBringsTheSessionBackToo(String transport) throws Exception {
        connect(transport, () -> token(clock.instant()), true);
        cutOff();

        assertEquals(EXPIRED_REFUSAL, next(handshakes).get(Message.ERROR_FIELD));
        assertTrue(next(handshakes).isSuccessful());
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), client::toString);
        assertEquals(1, refresherCalls.get());
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void aRefresherThatGivesExpiredTokensCostsOneHandshakeAndTheClientStaysDisconnected(String transport) throws Exception {
        connect(transport, () -> token(clock.instant().minusSeconds(3600)));
        // Heard after the extension's listener, on the client's thread: a handshake of the application's once the extension gave up.
        TokenExtension extension = (TokenExtension) client.getExtensions().get(0);
        AtomicInteger refusals = new AtomicInteger();
        client.getChannel(Channel.META_HANDSHAKE).addListener((ClientSessionChannel.MessageListener) (channel, message) -> {
            if (!message.isSuccessful() && refusals.incrementAndGet() == 2) {
                extension.setToken(token(clock.instant()));
                client.handshake();
            }
        });
        cutOff();

        assertEquals(EXPIRED_REFUSAL, next(handshakes).get(Message.ERROR_FIELD));
        assertEquals(EXPIRED_REFUSAL, next(handshakes).get(Message.ERROR_FIELD), "the handshake with the refresher's token");
        // Had the extension handshaken again too, a refusal would come between, or the application's handshake fail.
        assertTrue(next(handshakes).isSuccessful());
        assertTrue(handshakes.isEmpty(), handshakes::toString);
        assertEquals(1, refresherCalls.get());
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void aRefusalThatANewTokenCannotCureAsksTheRefresherNothing(String transport) throws Exception {
        server = NettyBayeuxServer.builder().port(0)
                .service(bayeux -> authentication = JwtAuthentication.install(bayeux, JwtConfig.builder().hmacSecret(Tokens.SECRET).clock(clock).build()))
                .build().start();
        client = Clients.client(server.uri(), transport, ClientConfig.builder().build());
        String forged = Tokens.hs256(Tokens.claims("alice", clock.instant()).build(), "another secret of at least 32 bytes!!");
        TokenExtension extension = new TokenExtension(forged, () -> {
            refresherCalls.incrementAndGet();
            return CompletableFuture.completedFuture(token(clock.instant()));
        });
        client.addExtension(extension);
        BlockingQueue<Message> replies = new LinkedBlockingQueue<>();
        AtomicInteger refusals = new AtomicInteger();
        // Heard before the extension's listener, on the client's thread: the application handshakes again at once, after
        // which every reply of the refusal's has been handled.
        client.getChannel(Channel.META_HANDSHAKE).addListener((ClientSessionChannel.MessageListener) (channel, message) -> {
            replies.add(message);
            if (!message.isSuccessful() && refusals.incrementAndGet() == 1) {
                extension.setToken(token(clock.instant()));
                client.handshake();
            }
        });
        client.handshake();
        assertEquals("403:" + TokenRejectedException.SIGNATURE + ":handshake_denied", next(replies).get(Message.ERROR_FIELD));
        assertTrue(next(replies).isSuccessful());
        assertEquals(0, refresherCalls.get());
    }
}
