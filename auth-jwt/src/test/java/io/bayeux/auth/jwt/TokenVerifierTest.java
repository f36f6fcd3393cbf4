package io.bayeux.auth.jwt;

import io.bayeux.testing.MutableClock;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jwt.JWTClaimsSet;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TokenVerifierTest {
    private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");
    private static final Tokens TOKENS = new Tokens();

    private final MutableClock clock = new MutableClock(NOW);

    private TokenVerifier verifier(JwtConfig.Builder builder) {
        return new TokenVerifier(builder.clock(clock).build());
    }

    private TokenVerifier verifier() {
        return verifier(JwtConfig.builder().hmacSecret(Tokens.SECRET).keys(TOKENS.publicKeys()));
    }

    private String refused(TokenVerifier verifier, String token) {
        return assertThrows(TokenRejectedException.class, () -> verifier.verify(token)).reason();
    }

    @Test
    void everySupportedAlgorithmVerifies() throws Exception {
        JWTClaimsSet claims = Tokens.claims("alice", NOW).claim("subscribe", List.of("/chat/**")).claim("publish", List.of("/chat/lobby")).build();
        for (String token : List.of(Tokens.hs256(claims), TOKENS.rs256(claims), TOKENS.es256(claims), TOKENS.eddsa(claims))) {
            VerifiedToken verified = verifier().verify(token);
            assertEquals("alice", verified.subject());
            assertEquals(NOW.plusSeconds(600), verified.expiresAt());
            assertEquals(List.of("/chat/**"), verified.subscribe());
            assertEquals(List.of("/chat/lobby"), verified.publish());
        }
    }

    @Test
    void absentChannelClaimsGrantNothing() throws Exception {
        VerifiedToken verified = verifier().verify(Tokens.hs256(Tokens.claims("bob", NOW).build()));
        assertTrue(verified.subscribe().isEmpty());
        assertTrue(verified.publish().isEmpty());
    }

    @Test
    void unsecuredTokensAreRefused() {
        assertEquals(TokenRejectedException.ALGORITHM, refused(verifier(), Tokens.none(Tokens.claims("mallory", NOW).build())));
    }

    @Test
    void anAlgorithmNotConfiguredIsRefused() {
        TokenVerifier onlyRsa = verifier(JwtConfig.builder().hmacSecret(Tokens.SECRET).keys(TOKENS.publicKeys()).algorithms(Set.of(JWSAlgorithm.RS256)));
        assertEquals(TokenRejectedException.ALGORITHM, refused(onlyRsa, Tokens.hs256(Tokens.claims("alice", NOW).build())));
    }

    @Test
    void malformedTokensAreRefused() {
        for (String token : List.of("not-a-token", "a.b.c", "e30.e30.", "bm90IGpzb24.e30.c2ln")) {
            assertEquals(TokenRejectedException.MALFORMED, refused(verifier(), token), token);
        }
        assertEquals(TokenRejectedException.MISSING, refused(verifier(), null));
        assertEquals(TokenRejectedException.MISSING, refused(verifier(), " "));
    }

    @Test
    void aWrongSignatureIsRefused() {
        JWTClaimsSet claims = Tokens.claims("alice", NOW).build();
        assertEquals(TokenRejectedException.SIGNATURE, refused(verifier(), Tokens.hs256(claims, "another-secret-of-at-least-32-bytes!")));
        String good = TOKENS.rs256(claims);
        String forged = good.substring(0, good.indexOf('.') + 1) + Tokens.hs256(Tokens.claims("root", NOW).build()).split("\\.")[1]
                + good.substring(good.lastIndexOf('.'));
        assertEquals(TokenRejectedException.SIGNATURE, refused(verifier(), forged));
        assertEquals(TokenRejectedException.SIGNATURE, refused(verifier(), new Tokens().eddsa(claims)));
    }

    @Test
    void aTokenSignedByAnUnknownKeyIsRefused() {
        TokenVerifier noPublicKeys = verifier(JwtConfig.builder().hmacSecret(Tokens.SECRET));
        assertEquals(TokenRejectedException.KEY_UNKNOWN, refused(noPublicKeys, TOKENS.es256(Tokens.claims("alice", NOW).build())));
    }

    @Test
    void expiryIsCheckedWithTheClockSkew() throws Exception {
        String token = Tokens.hs256(Tokens.claims("alice", NOW).build());
        TokenVerifier verifier = verifier(JwtConfig.builder().hmacSecret(Tokens.SECRET).clockSkew(Duration.ofSeconds(30)));
        clock.advance(Duration.ofSeconds(630));
        assertEquals("alice", verifier.verify(token).subject());
        clock.advance(Duration.ofSeconds(1));
        assertEquals(TokenRejectedException.EXPIRED, refused(verifier, token));
    }

    @Test
    void aTokenWithoutExpiryIsRefused() {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().subject("alice").build();
        assertEquals(TokenRejectedException.EXPIRY_MISSING, refused(verifier(), Tokens.hs256(claims)));
    }

    @Test
    void notBeforeIsCheckedWithTheClockSkew() throws Exception {
        String token = Tokens.hs256(Tokens.claims("alice", NOW).notBeforeTime(Date.from(NOW.plusSeconds(61))).build());
        assertEquals(TokenRejectedException.NOT_YET_VALID, refused(verifier(), token));
        clock.advance(Duration.ofSeconds(1));
        assertEquals("alice", verifier().verify(token).subject());
    }

    @Test
    void issuerAndAudienceAreCheckedWhenConfigured() throws Exception {
        TokenVerifier strict = verifier(JwtConfig.builder().hmacSecret(Tokens.SECRET).issuer("https://auth.example").audience("chat"));
        JWTClaimsSet.Builder claims = Tokens.claims("alice", NOW);
        assertEquals(TokenRejectedException.ISSUER, refused(strict, Tokens.hs256(claims.build())));
        claims.issuer("https://auth.example");
        assertEquals(TokenRejectedException.AUDIENCE, refused(strict, Tokens.hs256(claims.build())));
        claims.audience(List.of("billing"));
        assertEquals(TokenRejectedException.AUDIENCE, refused(strict, Tokens.hs256(claims.build())));
        claims.audience(List.of("billing", "chat"));
        assertEquals("alice", strict.verify(Tokens.hs256(claims.build())).subject());
    }

    @Test
    void oversizedTokensAreRefusedBeforeParsing() {
        String token = Tokens.hs256(Tokens.claims("alice", NOW).claim("padding", "x".repeat(9000)).build());
        assertEquals(TokenRejectedException.TOO_LARGE, refused(verifier(), token));
    }

    @Test
    void aTokenWithoutSubjectIsRefused() {
        JWTClaimsSet claims = new JWTClaimsSet.Builder().expirationTime(Date.from(NOW.plusSeconds(60))).build();
        assertEquals(TokenRejectedException.SUBJECT, refused(verifier(), Tokens.hs256(claims)));
    }

    @Test
    void channelClaimsMustBeArraysOfChannelPatterns() {
        assertEquals(TokenRejectedException.CLAIMS, refused(verifier(), Tokens.hs256(Tokens.claims("a", NOW).claim("subscribe", "/chat/**").build())));
        assertEquals(TokenRejectedException.CLAIMS, refused(verifier(), Tokens.hs256(Tokens.claims("a", NOW).claim("publish", List.of("chat")).build())));
    }

    @Test
    void theRefusalMessageNeverHoldsTheSignature() {
        String token = Tokens.hs256(Tokens.claims("alice", NOW.minusSeconds(3600)).build());
        TokenRejectedException x = assertThrows(TokenRejectedException.class, () -> verifier().verify(token));
        assertFalse(x.getMessage().contains(token.substring(token.lastIndexOf('.') + 1)), x.getMessage());
        assertTrue(x.getMessage().contains("sub=alice"), x.getMessage());
    }

    @Test
    void aShortSecretIsRefusedAtConfiguration() {
        assertThrows(IllegalArgumentException.class, () -> JwtConfig.builder().hmacSecret("short"));
        assertThrows(IllegalStateException.class, () -> JwtConfig.builder().build());
    }
}
