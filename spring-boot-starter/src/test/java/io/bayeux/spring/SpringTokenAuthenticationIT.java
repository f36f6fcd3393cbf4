package io.bayeux.spring;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.bayeux.api.Message;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.auth.jwt.JwtAuthentication;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.ext.TokenExtension;
import io.bayeux.client.transport.ClientTransport;
import io.bayeux.client.transport.LongPollingTransport;
import io.bayeux.client.transport.WebSocketTransport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The greeter application with token authentication turned on by {@code bayeux.token.*}, with this
 * project's Java client over both transports: a token signed with the configured secret gets in and
 * may use the channels its claims name, and no other; one signed with another secret is refused.
 */
@SpringBootTest(classes = GreeterApplication.class, properties = {"bayeux.port=0", "bayeux.token.secret=" + SpringTokenAuthenticationIT.SECRET,
        "bayeux.token.public-channels=/service/greet"})
class SpringTokenAuthenticationIT {
    static final String SECRET = "a spring test secret of 32 bytes or more";
    private static final Duration WAIT = Duration.ofSeconds(10);

    @Value("${" + BayeuxServerLifecycle.PORT_PROPERTY + "}")
    int port;
    @Autowired
    BayeuxServer bayeux;
    @Autowired
    JwtAuthentication authentication;

    private final ClientConfig config = ClientConfig.builder().build();
    private final List<BayeuxClient> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(BayeuxClient::close);
    }

    /** Claims for {@code sub}, ten minutes long, allowed to hear /greet/out and speak on /greet/in. */
    private static String token(String sub, String secret) throws JOSEException {
        Instant now = Instant.now();
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(sub).issueTime(Date.from(now)).expirationTime(Date.from(now.plusSeconds(600)))
                .claim("subscribe", List.of("/greet/out")).claim("publish", List.of("/greet/in")).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    private BayeuxClient client(String transportName, String token) {
        ClientTransport transport = transportName.equals(WebSocketTransport.NAME) ? new WebSocketTransport(config) : new LongPollingTransport(config);
        BayeuxClient client = new BayeuxClient("http://127.0.0.1:" + port + "/cometd", config, transport);
        clients.add(client);
        client.addExtension(new TokenExtension(token, () -> CompletableFuture.failedFuture(new IllegalStateException("no refresh in this test"))));
        return client;
    }

    private static Message handshake(BayeuxClient client) throws InterruptedException {
        BlockingQueue<Message> reply = new LinkedBlockingQueue<>();
        client.handshake(null, reply::add);
        return next(reply);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void aTokenSignedWithTheSecretGetsInAndUsesTheChannelsItsClaimsGrant(String transport) throws Exception {
        assertSame(authentication.policy(), bayeux.getSecurityPolicy(), "the starter installed the token's policy");
        BayeuxClient client = client(transport, token("alice", SECRET));
        assertTrue(handshake(client).isSuccessful());
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), client::toString);
        assertEquals("alice", bayeux.getSession(client.getId()).getAttribute(JwtAuthentication.USER_ID_ATTRIBUTE));

        BlockingQueue<Message> greetings = new LinkedBlockingQueue<>();
        BlockingQueue<Message> replies = new LinkedBlockingQueue<>();
        client.getChannel("/greet/out").subscribe((channel, message) -> greetings.add(message), replies::add);
        assertTrue(next(replies).isSuccessful());
        client.getChannel("/greet/in").publish("bob-" + transport, replies::add);
        assertTrue(next(replies).isSuccessful());
        assertEquals("hello, bob-" + transport, next(greetings).getData());

        BlockingQueue<Message> answers = new LinkedBlockingQueue<>();
        client.remoteCall("greet", "carol", answers::add);
        assertEquals("hello, carol", next(answers).getData(), "a public channel");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void whatTheClaimsDoNotGrantIsRefused(String transport) throws Exception {
        BayeuxClient client = client(transport, token("alice", SECRET));
        assertTrue(handshake(client).isSuccessful());
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), client::toString);

        BlockingQueue<Message> replies = new LinkedBlockingQueue<>();
        client.getChannel("/greet/in").subscribe((channel, message) -> { }, replies::add);
        Message subscribe = next(replies);
        assertFalse(subscribe.isSuccessful());
        assertEquals("403:denied_by_security_policy:subscribe_denied", subscribe.get(Message.ERROR_FIELD));
        client.getChannel("/greet/out").publish("forged", replies::add);
        Message publish = next(replies);
        assertFalse(publish.isSuccessful());
        assertEquals("403:denied_by_security_policy:publish_denied", publish.get(Message.ERROR_FIELD));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"websocket", "long-polling"})
    void aTokenSignedWithAnotherSecretIsRefused(String transport) throws Exception {
        BayeuxClient client = client(transport, token("alice", "another secret, also of 32 bytes or more"));
        Message reply = handshake(client);
        assertFalse(reply.isSuccessful());
        assertEquals("403:token_signature_invalid:handshake_denied", reply.get(Message.ERROR_FIELD));
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.DISCONNECTED), client::toString);
    }

    private static <T> T next(BlockingQueue<T> queue) throws InterruptedException {
        T element = queue.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertNotNull(element, "nothing arrived within " + WAIT);
        return element;
    }
}
