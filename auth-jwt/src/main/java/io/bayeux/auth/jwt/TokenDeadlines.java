package io.bayeux.auth.jwt;

import io.bayeux.api.Promise;
import io.bayeux.api.server.ServerSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The authenticated sessions and when their tokens run out: on each {@link #sweep()}, a session
 * whose token expires within {@link JwtConfig#refreshLead()} is asked (once per token) to
 * refresh it; one still on that token {@link JwtConfig#refreshGrace()} after it stopped being
 * accepted ({@code exp} plus {@link JwtConfig#clockSkew()}: so the client cannot handshake again with it) is
 * disconnected with the error {@link #EXPIRED_ERROR} and the advice to handshake again.
 * {@link #refresh} verifies a new token of the same subject and extends the session's deadline.
 *
 * <p>Thread-safe: the map is concurrent and each entry is replaced whole; nothing here is
 * called under a lock, so sessions are told and disconnected outside any.
 */
final class TokenDeadlines {
    private static final Logger LOG = LoggerFactory.getLogger(TokenDeadlines.class);

    /** The error a session gets when its token ran out and was not refreshed. */
    static final String EXPIRED_ERROR = "402:token_expired:session_expired";

    private final JwtConfig config;
    private final TokenVerifier verifier;
    /** Each tracked session's token, and whether it was asked to refresh that token. */
    private final Map<ServerSession, Tracked> sessions = new ConcurrentHashMap<>();

    TokenDeadlines(JwtConfig config, TokenVerifier verifier) {
        this.config = config;
        this.verifier = verifier;
    }

    private record Tracked(VerifiedToken token, boolean asked) {
    }

    void track(ServerSession session, VerifiedToken token) {
        sessions.put(session, new Tracked(token, false));
    }

    void untrack(ServerSession session) {
        sessions.remove(session);
    }

    int size() {
        return sessions.size();
    }

    /** Asks the sessions whose tokens expire soon to refresh them, and disconnects those past their grace. */
    void sweep() {
        Instant now = config.clock().instant();
        for (Map.Entry<ServerSession, Tracked> entry : sessions.entrySet()) {
            ServerSession session = entry.getKey();
            Tracked tracked = entry.getValue();
            Instant expiresAt = tracked.token().expiresAt();
            if (!now.isBefore(expiresAt.plus(config.clockSkew()).plus(config.refreshGrace()))) {
                if (sessions.remove(session, tracked)) {
                    LOG.info("Session {} of {} disconnected: its token expired at {} and was not refreshed", session.getId(),
                            tracked.token().subject(), expiresAt);
                    session.disconnect(EXPIRED_ERROR);
                }
            } else if (!tracked.asked() && !now.isBefore(expiresAt.minus(config.refreshLead()))) {
                if (sessions.replace(session, tracked, new Tracked(tracked.token(), true))) {
                    tell(session, "refresh", Map.of("exp", expiresAt.getEpochSecond()));
                }
            }
        }
    }

    /**
     * Replaces the token of {@code session} by {@code token} when it verifies and names the same
     * subject; tells the session {@code refreshed} (with the new {@code exp}) or {@code refused}
     * (with an error {@code 403:<reason>:refresh_denied}). A refused refresh leaves the old
     * deadline as it was.
     */
    void refresh(ServerSession session, Object token) {
        Tracked tracked = sessions.get(session);
        if (tracked == null) {
            return;
        }
        try {
            VerifiedToken fresh = verifier.verify(token instanceof String string ? string : null);
            if (!fresh.subject().equals(tracked.token().subject())) {
                throw new TokenRejectedException(TokenRejectedException.SUBJECT,
                        "refresh for " + fresh.subject() + " on a session of " + tracked.token().subject());
            }
            // Whatever a sweep did meanwhile (asked again), the new token wins; a removed session stays removed.
            if (sessions.computeIfPresent(session, (s, current) -> new Tracked(fresh, false)) != null) {
                session.setAttribute(JwtAuthentication.TOKEN_ATTRIBUTE, fresh);
                tell(session, "refreshed", Map.of("exp", fresh.expiresAt().getEpochSecond()));
            }
        } catch (TokenRejectedException x) {
            LOG.info("Token refresh refused ({}) for session {} of {}: {}", x.reason(), session.getId(), tracked.token().subject(), x.getMessage());
            tell(session, "refused", Map.of("error", "403:" + x.reason() + ":refresh_denied"));
        }
    }

    private static void tell(ServerSession session, String action, Map<String, Object> fields) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("action", action);
        data.putAll(fields);
        session.deliver(null, JwtAuthentication.REFRESH_CHANNEL, data, Promise.noop());
    }

    @Override
    public String toString() {
        return "TokenDeadlines[" + sessions.size() + " sessions]";
    }
}
