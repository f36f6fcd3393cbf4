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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Supplier;

import static io.bayeux.auth.jwt.Clients.WAIT;
import static io.bayeux.auth.jwt.Clients.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The refresh flow on {@code /service/token}, over each transport, on a clock the test moves:
 * tokens last 600 s, the server asks 60 s before expiry and waits 30 s after the token stops
 * being accepted (expiry plus the 60 s clock skew).
 */
class TokenRefreshIT {
    private final MutableClock clock = new MutableClock(Instant.now());
    private NettyBayeuxServer server;
    private JwtAuthentication authentication;
    private BayeuxClient client;
    /** What the server told the client on /service/token. */
    private final BlockingQueue<Map<String, Object>> told = new LinkedBlockingQueue<>();
    private final BlockingQueue<Message> handshakes = new LinkedBlockingQueue<>();
    private final BlockingQueue<Message> failedConnects = new LinkedBlockingQueue<>();

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

    private void connect(String transport, Supplier<CompletableFuture<String>> refresher) throws InterruptedException {
        connect(transport, refresher, Duration.ZERO);
    }

    private void connect(String transport, Supplier<CompletableFuture<String>> refresher, Duration sweepInterval) throws InterruptedException {
        JwtConfig config = JwtConfig.builder().hmacSecret(Tokens.SECRET).clock(clock).sweepInterval(sweepInterval)
                .refreshLead(Duration.ofSeconds(60)).refreshGrace(Duration.ofSeconds(30)).build();
        server = NettyBayeuxServer.builder().port(0).service(bayeux -> authentication = JwtAuthentication.install(bayeux, config)).build().start();
        client = Clients.client(server.uri(), transport, ClientConfig.builder().build());
        client.addExtension(new TokenExtension(token("alice"), refresher));
        client.getChannel(TokenExtension.CHANNEL).addListener((ClientSessionChannel.MessageListener) (channel, message) -> told.add(message.getDataAsMap()));
        client.getChannel(Channel.META_HANDSHAKE).addListener((ClientSessionChannel.MessageListener) (channel, message) -> handshakes.add(message));
        client.getChannel(Channel.META_CONNECT).addListener((ClientSessionChannel.MessageListener) (channel, message) -> {
            if (!message.isSuccessful()) {
                failedConnects.add(message);
            }
        });
        client.handshake();
        assertTrue(next(handshakes).isSuccessful());
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), client::toString);
    }

    /** A token for {@code sub} valid for 600 s from the clock's now. */
    private String token(String sub) {
        return Tokens.hs256(Tokens.claims(sub, clock.instant()).build());
    }

    private ServerSession session() {
        return server.bayeux().getSession(client.getId());
    }

    private Instant expiresAt() {
        return ((VerifiedToken) session().getAttribute(JwtAuthentication.TOKEN_ATTRIBUTE)).expiresAt();
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void aClientRefreshesItsTokenWithoutReconnecting(String transport) throws Exception {
        connect(transport, () -> CompletableFuture.completedFuture(token("alice")));
        String id = client.getId();
        Instant first = expiresAt();

        clock.advance(Duration.ofSeconds(530));
        authentication.sweep();
        assertTrue(told.isEmpty(), told::toString);

        clock.advance(Duration.ofSeconds(15));
        authentication.sweep();
        Map<String, Object> asked = next(told);
        assertEquals("refresh", asked.get("action"));
        assertEquals(first.getEpochSecond(), ((Number) asked.get("exp")).longValue());
        Map<String, Object> refreshed = next(told);
        assertEquals("refreshed", refreshed.get("action"));
        Instant second = Instant.ofEpochSecond(((Number) refreshed.get("exp")).longValue());
        assertEquals(first.plusSeconds(545), second);
        assertEquals(second, expiresAt());

        clock.advance(Duration.ofSeconds(100));
        authentication.sweep();
        assertNotNull(session(), "the refreshed session was removed");
        assertEquals(id, client.getId());
        assertTrue(client.isConnected(), client::toString);
        assertTrue(failedConnects.isEmpty(), failedConnects::toString);
    }

    @Test
    void deadlinesAreCheckedOnTheirOwnTimer() throws Exception {
        connect("websocket", () -> CompletableFuture.completedFuture(token("alice")), Duration.ofMillis(20));
        Instant first = expiresAt();

        clock.advance(Duration.ofSeconds(545));
        assertEquals("refresh", next(told).get("action"));
        assertEquals("refreshed", next(told).get("action"));
        assertEquals(first.plusSeconds(545), expiresAt());
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void aRefreshForAnotherUserIsRefused(String transport) throws Exception {
        connect(transport, () -> CompletableFuture.completedFuture(token("mallory")));
        Instant first = expiresAt();

        clock.advance(Duration.ofSeconds(545));
        authentication.sweep();
        assertEquals("refresh", next(told).get("action"));
        assertEquals(Map.of("action", "refused", "error", "403:" + TokenRejectedException.SUBJECT + ":refresh_denied"), next(told));
        assertEquals(first, expiresAt());
        assertEquals("alice", session().getAttribute(JwtAuthentication.USER_ID_ATTRIBUTE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void aClientThatDoesNotRefreshIsDisconnectedAfterTheGracePeriod(String transport) throws Exception {
        connect(transport, CompletableFuture::new);
        String id = client.getId();

        clock.advance(Duration.ofSeconds(545));
        authentication.sweep();
        assertEquals("refresh", next(told).get("action"));
        clock.advance(Duration.ofSeconds(144));
        authentication.sweep();
        assertNotNull(server.bayeux().getSession(id), "removed within its grace period");

        clock.advance(Duration.ofSeconds(1));
        authentication.sweep();
        Message connect = next(failedConnects);
        assertEquals("402:token_expired:session_expired", connect.get(Message.ERROR_FIELD));
        assertEquals("handshake", connect.getAdvice().get(Message.RECONNECT_FIELD));
        Await.until(WAIT, () -> server.bayeux().getSession(id) == null, () -> "session " + id + " still there");
        assertEquals(0, authentication.trackedSessions());
        // The client handshakes again as advised, with the token it has: expired by now.
        assertEquals("403:" + TokenRejectedException.EXPIRED + ":handshake_denied", next(handshakes).get(Message.ERROR_FIELD));
    }
}
