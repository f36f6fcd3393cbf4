package io.bayeux.spring;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.ext.TokenExtension;
import io.bayeux.cluster.redis.RedisProcess;
import io.bayeux.presence.Presence;
import io.bayeux.testing.Await;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Token authentication on a clustered node: the user a token names is associated in the cluster's presence (Oort's Seti, Redis' RedisSeti). */
class SpringTokenPresenceIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final String SECRET = "a presence test secret of 32 bytes or more";

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();
    private final List<BayeuxClient> clients = new ArrayList<>();

    @AfterEach
    void close() {
        clients.forEach(BayeuxClient::close);
        contexts.forEach(ConfigurableApplicationContext::close);
    }

    private ConfigurableApplicationContext node(String... properties) {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(GreeterApplication.class)
                .properties("bayeux.port=0", "bayeux.token.secret=" + SECRET).properties(properties).run();
        contexts.add(context);
        return context;
    }

    private void connect(ConfigurableApplicationContext context, String user) throws Exception {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(user).expirationTime(Date.from(Instant.now().plusSeconds(600))).build();
        SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
        BayeuxClient client = new BayeuxClient(context.getBean(NettyBayeuxServer.class).uri().toString(), ClientConfig.builder().build());
        clients.add(client);
        client.addExtension(new TokenExtension(jwt.serialize(), CompletableFuture::new));
        client.handshake();
        assertTrue(client.waitFor(WAIT, BayeuxClient.State.CONNECTED), client::toString);
    }

    private static void assertAssociated(Presence presence, String user) {
        assertNotNull(presence, "the cluster keeps presence");
        Await.until(WAIT, () -> presence.isAssociated(user), () -> user + " associated in " + presence);
    }

    @Test
    void anOortNodeAssociatesTheTokensUserInItsSeti() throws Exception {
        ConfigurableApplicationContext node = node("bayeux.cluster=oort");
        connect(node, "alice");
        assertSame(node.getBean(OortMember.class).seti(), node.getBean(TokenUsersPresence.class).presence());
        assertAssociated(node.getBean(OortMember.class).seti(), "alice");
    }

    @Test
    void aRedisNodeAssociatesTheTokensUserInItsRedisSeti() throws Exception {
        try (RedisProcess redis = RedisProcess.start()) {
            ConfigurableApplicationContext node = node("bayeux.cluster=redis", "bayeux.redis.uri=" + redis.uri());
            connect(node, "bob");
            assertAssociated(node.getBean(RedisMember.class).seti(), "bob");
            // The node goes before its Redis does.
            node.close();
        }
    }
}
