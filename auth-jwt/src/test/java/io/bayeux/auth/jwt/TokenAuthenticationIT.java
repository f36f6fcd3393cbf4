package io.bayeux.auth.jwt;

import io.bayeux.testing.MutableClock;
import com.nimbusds.jwt.JWTClaimsSet;
import io.bayeux.api.Message;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.ext.TokenExtension;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static io.bayeux.auth.jwt.Clients.WAIT;
import static io.bayeux.auth.jwt.Clients.next;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Handshakes authenticated by a JWT and channels granted by its claims, over each transport. */
class TokenAuthenticationIT {
    private final MutableClock clock = new MutableClock(Instant.now());
    private final AtomicInteger sessionsAdded = new AtomicInteger();
    private NettyBayeuxServer server;
    private JwtAuthentication authentication;
    private BayeuxClient client;

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

    private void start(UnaryOperator<JwtConfig.Builder> settings) {
        JwtConfig config = settings.apply(JwtConfig.builder().hmacSecret(Tokens.SECRET).clock(clock).sweepInterval(Duration.ZERO)).build();
        server = NettyBayeuxServer.builder().port(0).service(bayeux -> {
            authentication = JwtAuthentication.install(bayeux, config);
            bayeux.addListener(new BayeuxServer.SessionListener() {
                @Override
                public void sessionAdded(ServerSession session, ServerMessage message) {
                    sessionsAdded.incrementAndGet();
                }

                @Override
                public void sessionRemoved(ServerSession session, ServerMessage message, boolean timeout) {
                }
            });
        }).build().start();
    }

    private Message handshake(String transport, String token) throws InterruptedException {
        if (client != null) {
            client.close();
        }
        client = Clients.client(server.uri(), transport, ClientConfig.builder().build());
        if (token != null) {
            client.addExtension(new TokenExtension(token, () -> new CompletableFuture<>()));
        }
        return Clients.handshake(client);
    }

    private JWTClaimsSet.Builder claims(String sub) {
        return Tokens.claims(sub, clock.instant());
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void aValidTokenInTheHandshakeExtNamesTheSessionsUser(String transport) throws Exception {
        start(config -> config);
        Message reply = handshake(transport, Tokens.hs256(claims("alice").build()));

        assertTrue(reply.isSuccessful(), reply::toString);
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), client::toString);
        ServerSession session = server.bayeux().getSession(client.getId());
        assertEquals("alice", session.getAttribute(JwtAuthentication.USER_ID_ATTRIBUTE));
        assertEquals("alice", ((VerifiedToken) session.getAttribute(JwtAuthentication.TOKEN_ATTRIBUTE)).subject());
        assertEquals(1, authentication.trackedSessions());
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void everyBadTokenIsRefusedWithItsReasonBeforeApplicationCode(String transport) throws Exception {
        start(config -> config.issuer("https://auth.example").audience("chat"));
        Instant now = clock.instant();
        UnaryOperator<JWTClaimsSet.Builder> valid = b -> b.issuer("https://auth.example").audience("chat");
        Map<String, String> cases = new LinkedHashMap<>();
        cases.put(null, TokenRejectedException.MISSING);
        cases.put("not.a.token", TokenRejectedException.MALFORMED);
        cases.put(Tokens.none(valid.apply(claims("alice")).build()), TokenRejectedException.ALGORITHM);
        cases.put(Tokens.hs256(valid.apply(claims("alice")).build(), "another-secret-of-at-least-32-bytes!"), TokenRejectedException.SIGNATURE);
        cases.put(Tokens.hs256(valid.apply(Tokens.claims("alice", now.minusSeconds(3600))).build()), TokenRejectedException.EXPIRED);
        cases.put(Tokens.hs256(valid.apply(claims("alice")).notBeforeTime(Date.from(now.plusSeconds(3600))).build()), TokenRejectedException.NOT_YET_VALID);
        cases.put(Tokens.hs256(valid.apply(claims("alice")).issuer("https://evil.example").build()), TokenRejectedException.ISSUER);
        cases.put(Tokens.hs256(valid.apply(claims("alice")).audience("billing").build()), TokenRejectedException.AUDIENCE);
        cases.put(Tokens.hs256(valid.apply(claims("alice")).claim("pad", "x".repeat(9000)).build()), TokenRejectedException.TOO_LARGE);

        for (Map.Entry<String, String> bad : cases.entrySet()) {
            Message reply = handshake(transport, bad.getKey());
            assertFalse(reply.isSuccessful(), reply::toString);
            assertEquals("403:" + bad.getValue() + ":handshake_denied", reply.get(Message.ERROR_FIELD), reply::toString);
            assertTrue(client.waitFor(WAIT, BayeuxClient.State.DISCONNECTED), client::toString);
        }
        assertEquals(0, sessionsAdded.get());
        assertEquals(0, server.bayeux().getSessions().size());
        assertTrue(handshake(transport, Tokens.hs256(valid.apply(claims("alice")).build())).isSuccessful());
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void aBearerHeaderIsReadWhenConfigured(String transport) throws Exception {
        start(config -> config.tokenSources(TokenSource.header("Authorization"), TokenSource.ext("token")));
        String token = Tokens.hs256(claims("carol").build());
        client = Clients.client(server.uri(), transport, ClientConfig.builder().header("Authorization", "Bearer " + token).build());
        Message reply = Clients.handshake(client);

        assertTrue(reply.isSuccessful(), reply::toString);
        assertEquals("carol", server.bayeux().getSession(client.getId()).getAttribute(JwtAuthentication.USER_ID_ATTRIBUTE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void aCookieIsReadWhenConfigured(String transport) throws Exception {
        start(config -> config.tokenSources(TokenSource.cookie("jwt")));
        client = Clients.client(server.uri(), transport, ClientConfig.builder().build());
        client.putCookie("jwt", Tokens.hs256(claims("dave").build()));
        Message reply = Clients.handshake(client);

        assertTrue(reply.isSuccessful(), reply::toString);
        assertEquals("dave", server.bayeux().getSession(client.getId()).getAttribute(JwtAuthentication.USER_ID_ATTRIBUTE));
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void subscribingOutsideTheClaimsIsRefused(String transport) throws Exception {
        start(config -> config.publicChannels("/demo/public/**"));
        assertTrue(handshake(transport, Tokens.hs256(claims("alice").claim("subscribe", List.of("/chat/*")).build())).isSuccessful());

        assertEquals(null, subscribe("/chat/lobby"));
        assertEquals(null, subscribe("/chat/*"));
        assertEquals(null, subscribe("/demo/public/news"));
        assertEquals("403:denied_by_security_policy:subscribe_denied", subscribe("/admin/logs"));
        assertEquals("403:denied_by_security_policy:subscribe_denied", subscribe("/chat/**"));
        assertEquals("403:denied_by_security_policy:subscribe_denied", subscribe("/chat/a/b"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"long-polling", "websocket"})
    void publishingOutsideTheClaimsIsRefused(String transport) throws Exception {
        start(config -> config.publicChannels("/service/demo/**"));
        assertTrue(handshake(transport, Tokens.hs256(claims("alice").claim("publish", List.of("/chat/lobby")).build())).isSuccessful());
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        server.bayeux().createChannelIfAbsent("/chat/**").getReference()
                .addListener((io.bayeux.api.server.ServerChannel.MessageListener) (from, channel, message) -> received.add(message.getChannel()));

        assertEquals(null, publish("/chat/lobby"));
        assertEquals("/chat/lobby", next(received));
        assertEquals(null, publish("/service/demo/echo"));
        assertEquals("403:denied_by_security_policy:publish_denied", publish("/chat/other"));
        assertEquals("403:denied_by_security_policy:publish_denied", publish("/admin/shutdown"));
        assertEquals(null, publish("/chat/lobby"));
        assertEquals("/chat/lobby", next(received));
        assertTrue(received.isEmpty(), received::toString);
    }

    /** Subscribes and returns the error, or null when it succeeded. */
    private Object subscribe(String channel) throws InterruptedException {
        BlockingQueue<Message> reply = new LinkedBlockingQueue<>();
        client.getChannel(channel).subscribe((c, m) -> {
        }, reply::add);
        Message message = next(reply);
        return message.isSuccessful() ? null : message.get(Message.ERROR_FIELD);
    }

    /** Publishes and returns the error, or null when it succeeded. */
    private Object publish(String channel) throws InterruptedException {
        BlockingQueue<Message> reply = new LinkedBlockingQueue<>();
        client.getChannel(channel).publish(Map.of("text", "hi"), reply::add);
        Message message = next(reply);
        return message.isSuccessful() ? null : message.get(Message.ERROR_FIELD);
    }
}
