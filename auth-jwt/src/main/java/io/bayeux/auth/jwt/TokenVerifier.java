package io.bayeux.auth.jwt;

import com.nimbusds.jose.Algorithm;
import com.nimbusds.jose.Header;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObject;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.KeySourceException;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKMatcher;
import com.nimbusds.jose.jwk.JWKSelector;
import com.nimbusds.jose.jwk.OctetKeyPair;
import com.nimbusds.jose.jwk.OctetSequenceKey;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.source.ImmutableJWKSet;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.jwk.source.RateLimitReachedException;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jose.util.Base64URL;
import com.nimbusds.jose.util.DefaultResourceRetriever;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

import java.net.MalformedURLException;
import java.text.ParseException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;

/**
 * Verifies a compact JWS token against the configured keys and claims rules, and tells why it
 * refuses one. Thread-safe: the JWKS source caches and refreshes under its own locks.
 */
public final class TokenVerifier {
    /** The most a JWK set document may weigh. */
    private static final int JWKS_SIZE_LIMIT = 64 * 1024;

    private final JwtConfig config;
    private final byte[] hmacSecret;
    private final List<JWKSource<SecurityContext>> keySources = new ArrayList<>();

    public TokenVerifier(JwtConfig config) {
        this.config = config;
        this.hmacSecret = config.hmacSecret();
        if (config.keys() != null) {
            keySources.add(new ImmutableJWKSet<>(config.keys()));
        }
        if (config.jwksUrl() != null) {
            int timeout = Math.toIntExact(config.jwksTimeout().toMillis());
            try {
                keySources.add(JWKSourceBuilder.<SecurityContext>create(config.jwksUrl().toURL(),
                                new DefaultResourceRetriever(timeout, timeout, JWKS_SIZE_LIMIT))
                        .cache(config.jwksCacheTime().toMillis(), config.jwksTimeout().toMillis())
                        .refreshAheadCache(false)
                        .rateLimited(config.jwksMinRefreshInterval().toMillis())
                        .retrying(false)
                        .outageTolerant(false)
                        .build());
            } catch (MalformedURLException x) {
                throw new IllegalArgumentException("bad JWKS URL: " + config.jwksUrl(), x);
            }
        }
    }

    /**
     * Verifies {@code token}: size, algorithm, signature, then {@code exp}, {@code nbf},
     * {@code iss}, {@code aud}, {@code sub} and the channel claims. May block on a JWKS fetch
     * (bounded by {@link JwtConfig#jwksTimeout()}).
     *
     * @throws TokenRejectedException with the first reason found
     */
    public VerifiedToken verify(String token) throws TokenRejectedException {
        if (token == null || token.isBlank()) {
            throw new TokenRejectedException(TokenRejectedException.MISSING, "no token");
        }
        if (token.length() > config.maxTokenLength()) {
            throw new TokenRejectedException(TokenRejectedException.TOO_LARGE,
                    "token of " + token.length() + " characters, more than " + config.maxTokenLength());
        }
        Header header;
        try {
            Base64URL[] parts = JOSEObject.split(token);
            header = Header.parse(parts[0]);
        } catch (ParseException | RuntimeException x) {
            throw new TokenRejectedException(TokenRejectedException.MALFORMED, "unreadable token header: " + x.getMessage());
        }
        Algorithm alg = header.getAlgorithm();
        if (Algorithm.NONE.equals(alg) || !(alg instanceof JWSAlgorithm jwsAlg) || !config.algorithms().contains(jwsAlg)) {
            throw new TokenRejectedException(TokenRejectedException.ALGORITHM, "algorithm refused: " + alg);
        }
        SignedJWT jwt;
        try {
            jwt = SignedJWT.parse(token);
        } catch (ParseException | RuntimeException x) {
            throw new TokenRejectedException(TokenRejectedException.MALFORMED, "unreadable token (alg " + alg + "): " + x.getMessage());
        }
        String described = "alg=" + alg + " kid=" + jwt.getHeader().getKeyID();
        List<JWSVerifier> verifiers = verifiers(jwt.getHeader());
        if (verifiers.isEmpty()) {
            throw new TokenRejectedException(TokenRejectedException.KEY_UNKNOWN, "no key for " + described);
        }
        if (!verified(jwt, verifiers)) {
            throw new TokenRejectedException(TokenRejectedException.SIGNATURE, "bad signature, " + described);
        }
        JWTClaimsSet claims;
        try {
            claims = jwt.getJWTClaimsSet();
        } catch (ParseException x) {
            throw new TokenRejectedException(TokenRejectedException.MALFORMED, "unreadable claims, " + described);
        }
        return checkClaims(claims, described);
    }

    private VerifiedToken checkClaims(JWTClaimsSet claims, String described) throws TokenRejectedException {
        described += " sub=" + claims.getSubject();
        Instant now = config.clock().instant();
        Date exp = claims.getExpirationTime();
        if (exp == null) {
            throw new TokenRejectedException(TokenRejectedException.EXPIRY_MISSING, "no exp, " + described);
        }
        if (now.isAfter(exp.toInstant().plus(config.clockSkew()))) {
            throw new TokenRejectedException(TokenRejectedException.EXPIRED, "expired at " + exp.toInstant() + ", " + described);
        }
        Date nbf = claims.getNotBeforeTime();
        if (nbf != null && now.isBefore(nbf.toInstant().minus(config.clockSkew()))) {
            throw new TokenRejectedException(TokenRejectedException.NOT_YET_VALID, "not before " + nbf.toInstant() + ", " + described);
        }
        if (config.issuer() != null && !config.issuer().equals(claims.getIssuer())) {
            throw new TokenRejectedException(TokenRejectedException.ISSUER, "issuer " + claims.getIssuer() + ", " + described);
        }
        if (config.audience() != null && (claims.getAudience() == null || !claims.getAudience().contains(config.audience()))) {
            throw new TokenRejectedException(TokenRejectedException.AUDIENCE, "audience " + claims.getAudience() + ", " + described);
        }
        String subject = claims.getSubject();
        if (subject == null || subject.isBlank()) {
            throw new TokenRejectedException(TokenRejectedException.SUBJECT, "no sub, " + described);
        }
        return new VerifiedToken(subject, exp.toInstant(), patterns(claims, "subscribe", described), patterns(claims, "publish", described), claims);
    }

    private static List<String> patterns(JWTClaimsSet claims, String name, String described) throws TokenRejectedException {
        List<String> patterns;
        try {
            patterns = claims.getStringListClaim(name);
        } catch (ParseException x) {
            throw new TokenRejectedException(TokenRejectedException.CLAIMS, name + " is not an array of strings, " + described);
        }
        if (patterns == null) {
            return List.of();
        }
        for (String pattern : patterns) {
            if (!ChannelPatterns.isValid(pattern)) {
                throw new TokenRejectedException(TokenRejectedException.CLAIMS, name + " has a bad channel pattern " + pattern + ", " + described);
            }
        }
        return patterns;
    }

    /** Verifiers for the keys that may have signed a token with {@code header}: the HMAC secret, then matching JWKs. */
    private List<JWSVerifier> verifiers(JWSHeader header) throws TokenRejectedException {
        List<JWSVerifier> verifiers = new ArrayList<>();
        try {
            if (hmacSecret != null && JWSAlgorithm.HS256.equals(header.getAlgorithm())) {
                verifiers.add(new MACVerifier(hmacSecret));
            }
            JWKSelector selector = new JWKSelector(JWKMatcher.forJWSHeader(header));
            for (JWKSource<SecurityContext> source : keySources) {
                for (JWK key : source.get(selector, null)) {
                    JWSVerifier verifier = verifier(key);
                    if (verifier != null) {
                        verifiers.add(verifier);
                    }
                }
            }
        } catch (RateLimitReachedException x) {
            // The cached set has no such key, and it was fetched again too recently to try once more.
            throw new TokenRejectedException(TokenRejectedException.KEY_UNKNOWN, "no key for kid " + header.getKeyID() + " (JWKS refreshed recently)");
        } catch (KeySourceException x) {
            throw new TokenRejectedException(TokenRejectedException.KEYS_UNAVAILABLE, "JWKS unavailable: " + x.getMessage());
        } catch (JOSEException x) {
            throw new TokenRejectedException(TokenRejectedException.KEY_UNKNOWN, "unusable key: " + x.getMessage());
        }
        return verifiers;
    }

    private static JWSVerifier verifier(JWK key) throws JOSEException {
        return switch (key) {
            case OctetSequenceKey oct -> new MACVerifier(oct);
            case RSAKey rsa -> new RSASSAVerifier(rsa);
            case ECKey ec -> new ECDSAVerifier(ec);
            case OctetKeyPair okp -> new Ed25519JdkVerifier(okp);
            default -> null;
        };
    }

    private static boolean verified(SignedJWT jwt, List<JWSVerifier> verifiers) {
        for (JWSVerifier verifier : verifiers) {
            try {
                if (jwt.verify(verifier)) {
                    return true;
                }
            } catch (JOSEException x) {
                // A key that cannot check this signature (wrong size, wrong curve): try the next one.
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "TokenVerifier[" + config + "]";
    }
}
