package io.bayeux.auth.jwt;

import io.bayeux.api.server.BayeuxContext;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.DefaultSecurityPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Authenticates remote handshakes by a JSON Web Token and grants channels from its claims.
 *
 * <ul>
 *   <li>Handshake: the token is read from the configured {@link TokenSource}s and verified by a
 *       {@link TokenVerifier}; when it passes, the session gets the attributes
 *       {@link JwtAuthentication#TOKEN_ATTRIBUTE} (the {@link VerifiedToken}) and
 *       {@link JwtAuthentication#USER_ID_ATTRIBUTE} (its {@code sub}). When it does not, the
 *       handshake is refused, the reason is logged (at INFO, without the token's signature) and
 *       kept for {@link JwtAuthentication}'s reply extension, which makes the error
 *       {@code 403:<reason>:handshake_denied}; without it the error is {@code 403::handshake_denied}.</li>
 *   <li>Subscribe: allowed when the {@code subscribe} claim or
 *       {@link JwtConfig#publicChannels()} covers the channel (for a wildcard subscription,
 *       every channel it names). Publish: likewise with {@code publish}, and always on
 *       {@link JwtAuthentication#REFRESH_CHANNEL}. Create: any authenticated session (what it may do
 *       on the channel is checked next). Refusals are {@code 403:denied_by_security_policy:subscribe_denied}
 *       (or {@code publish_denied}), CometD's errors.</li>
 *   <li>Local sessions (the application's own) are never asked for a token and may do
 *       everything; {@code /meta/**} stays closed to remote sessions, as in
 *       {@link DefaultSecurityPolicy}.</li>
 * </ul>
 *
 * <p>Thread-safe: the configuration is immutable and the verifier is thread-safe. Verifying
 * may block on a JWKS fetch (bounded by {@link JwtConfig#jwksTimeout()}), which the server
 * runs on its executor, never on an event loop.
 */
public class JwtSecurityPolicy extends DefaultSecurityPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(JwtSecurityPolicy.class);

    /** The session attribute holding the reason of a refused handshake, for the reply extension. */
    static final String REFUSAL_ATTRIBUTE = "io.bayeux.auth.jwt.refusal";

    private final JwtConfig config;
    private final TokenVerifier verifier;

    public JwtSecurityPolicy(JwtConfig config) {
        this(config, new TokenVerifier(config));
    }

    JwtSecurityPolicy(JwtConfig config, TokenVerifier verifier) {
        this.config = config;
        this.verifier = verifier;
    }

    /** The verifier this policy checks handshakes with (and refreshes are checked with). */
    public TokenVerifier verifier() {
        return verifier;
    }

    @Override
    public boolean canHandshake(BayeuxServer server, ServerSession session, ServerMessage message) {
        if (session != null && session.isLocalSession()) {
            return true;
        }
        try {
            VerifiedToken token = verifier.verify(readToken(message));
            session.setAttribute(JwtAuthentication.TOKEN_ATTRIBUTE, token);
            session.setAttribute(JwtAuthentication.USER_ID_ATTRIBUTE, token.subject());
            return true;
        } catch (TokenRejectedException x) {
            if (session != null) {
                session.setAttribute(REFUSAL_ATTRIBUTE, x.reason());
            }
            BayeuxContext context = message.getBayeuxContext();
            LOG.info("Handshake refused ({}) from {}: {}", x.reason(), context == null ? null : context.getRemoteAddress(), x.getMessage());
            return false;
        }
    }

    private String readToken(ServerMessage message) {
        for (TokenSource source : config.tokenSources()) {
            String token = source.read(message);
            if (token != null) {
                return token;
            }
        }
        return null;
    }

    @Override
    public boolean canCreate(BayeuxServer server, ServerSession session, String channelId, ServerMessage message) {
        // Any authenticated session: subscribe and publish are checked next, with their own errors.
        return super.canCreate(server, session, channelId, message) && (session.isLocalSession() || token(session) != null);
    }

    @Override
    public boolean canSubscribe(BayeuxServer server, ServerSession session, ServerChannel channel, ServerMessage message) {
        if (!super.canSubscribe(server, session, channel, message)) {
            return false;
        }
        if (session.isLocalSession()) {
            return true;
        }
        VerifiedToken token = token(session);
        return token != null && granted(token.subscribe(), channel.getId());
    }

    @Override
    public boolean canPublish(BayeuxServer server, ServerSession session, ServerChannel channel, ServerMessage message) {
        if (!super.canPublish(server, session, channel, message)) {
            return false;
        }
        if (session.isLocalSession()) {
            return true;
        }
        VerifiedToken token = token(session);
        return token != null && (JwtAuthentication.REFRESH_CHANNEL.equals(channel.getId()) || granted(token.publish(), channel.getId()));
    }

    private boolean granted(List<String> claimed, String channel) {
        return ChannelPatterns.anyCovers(claimed, channel) || ChannelPatterns.anyCovers(config.publicChannels(), channel);
    }

    private static VerifiedToken token(ServerSession session) {
        return session.getAttribute(JwtAuthentication.TOKEN_ATTRIBUTE) instanceof VerifiedToken token ? token : null;
    }

    @Override
    public String toString() {
        return "JwtSecurityPolicy[" + config + "]";
    }
}
