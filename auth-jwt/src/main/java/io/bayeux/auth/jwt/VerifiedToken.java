package io.bayeux.auth.jwt;

import com.nimbusds.jwt.JWTClaimsSet;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A token whose signature and claims passed: who it names, until when, and the channels it
 * grants. Immutable.
 *
 * @param subject    the {@code sub} claim, the user id
 * @param expiresAt  the {@code exp} claim
 * @param subscribe  the {@code subscribe} claim: channel patterns the session may subscribe to (empty when absent)
 * @param publish    the {@code publish} claim: channel patterns the session may publish on (empty when absent)
 * @param claims     every claim, for application code that wants more (roles, names)
 */
public record VerifiedToken(String subject, Instant expiresAt, List<String> subscribe, List<String> publish, JWTClaimsSet claims) {
    public VerifiedToken {
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(expiresAt, "expiresAt");
        subscribe = List.copyOf(subscribe);
        publish = List.copyOf(publish);
        Objects.requireNonNull(claims, "claims");
    }

    @Override
    public String toString() {
        return "VerifiedToken[sub=" + subject + ", exp=" + expiresAt + ", subscribe=" + subscribe + ", publish=" + publish + "]";
    }
}
