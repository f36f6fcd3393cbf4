package io.bayeux.auth.jwt;

import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jwt.JWTClaimsSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Keys from a JWKS URL served on loopback: fetched once, cached, fetched again for an unknown key id. */
class JwksKeysIT {
    private static final Tokens TOKENS = new Tokens();

    private final JwtConfig.Builder config = JwtConfig.builder().jwksTimeout(Duration.ofSeconds(2));
    private JwksServer jwks;

    @AfterEach
    void stop() {
        if (jwks != null) {
            jwks.close();
        }
    }

    @Test
    void keysAreFetchedOnceThenCached() throws Exception {
        jwks = new JwksServer(TOKENS.publicKeys());
        TokenVerifier verifier = new TokenVerifier(config.jwksUrl(jwks.uri()).build());
        JWTClaimsSet claims = Tokens.claims("alice", Instant.now()).build();

        for (String token : List.of(TOKENS.rs256(claims), TOKENS.es256(claims), TOKENS.eddsa(claims), TOKENS.rs256(claims))) {
            assertEquals("alice", verifier.verify(token).subject());
        }
        assertEquals(1, jwks.fetches());
    }

    @Test
    void anUnknownKeyIdFetchesTheSetAgain() throws Exception {
        jwks = new JwksServer(new JWKSet(List.<JWK>of(TOKENS.rsa.toPublicJWK())));
        TokenVerifier verifier = new TokenVerifier(config.jwksUrl(jwks.uri()).build());
        JWTClaimsSet claims = Tokens.claims("alice", Instant.now()).build();
        assertEquals("alice", verifier.verify(TOKENS.rs256(claims)).subject());

        jwks.publish(TOKENS.publicKeys());
        assertEquals("alice", verifier.verify(TOKENS.es256(claims)).subject());
        assertEquals(2, jwks.fetches());
    }

    @Test
    void aKeyStillUnknownAfterTheFetchIsRefusedAndUnknownKeysDoNotHammerTheKeyServer() throws Exception {
        jwks = new JwksServer(new JWKSet(List.<JWK>of(TOKENS.rsa.toPublicJWK())));
        TokenVerifier verifier = new TokenVerifier(config.jwksUrl(jwks.uri()).build());
        assertEquals("alice", verifier.verify(TOKENS.rs256(Tokens.claims("alice", Instant.now()).build())).subject());
        for (int i = 0; i < 5; i++) {
            TokenRejectedException x = assertThrows(TokenRejectedException.class,
                    () -> verifier.verify(TOKENS.es256(Tokens.claims("alice", Instant.now()).build())));
            assertEquals(TokenRejectedException.KEY_UNKNOWN, x.reason());
        }
        // The first fetch, then one for the unknown key id; no more within jwksMinRefreshInterval (30 s).
        assertEquals(2, jwks.fetches());
    }

    @Test
    void anUnreachableJwksRefusesTheToken() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        TokenVerifier verifier = new TokenVerifier(config.jwksUrl(URI.create("http://127.0.0.1:" + port + "/jwks.json")).build());
        TokenRejectedException x = assertThrows(TokenRejectedException.class,
                () -> verifier.verify(TOKENS.rs256(Tokens.claims("alice", Instant.now()).build())));
        assertEquals(TokenRejectedException.KEYS_UNAVAILABLE, x.reason());
    }
}
