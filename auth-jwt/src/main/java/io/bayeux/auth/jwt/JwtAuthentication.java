package io.bayeux.auth.jwt;

import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ConfigurableServerChannel;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.presence.Presence;
import io.bayeux.server.NonBlocking;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Token authentication installed on a server: the {@link JwtSecurityPolicy}, the refresh flow on
 * {@link #REFRESH_CHANNEL}, the detailed handshake errors and, once {@link #associateUsers}
 * is called, each user's presence.
 *
 * <pre>{@code
 * NettyBayeuxServer.builder().service(bayeux -> JwtAuthentication.install(bayeux, config))
 * }</pre>
 *
 * <p>The refresh flow: {@link JwtConfig#refreshLead()} before a session's token expires, the
 * server delivers {@code {"action":"refresh","exp":<seconds>}} on {@code /service/token} to that
 * session; the client publishes {@code {"token":"<new token>"}} there; the server answers
 * {@code {"action":"refreshed","exp":<seconds>}} or {@code {"action":"refused","error":"403:<reason>:refresh_denied"}}.
 * A session still on its old token {@link JwtConfig#refreshGrace()} after it stopped being
 * accepted ({@code exp} plus {@link JwtConfig#clockSkew()}) is disconnected with {@code 402:token_expired:session_expired} and the advice to handshake again.
 *
 * <p>Thread-safe. Owns one daemon thread that checks deadlines every
 * {@link JwtConfig#sweepInterval()} (none when it is zero); {@link #close()} stops it.
 */
public final class JwtAuthentication implements AutoCloseable {
    /** The session attribute holding the session's current {@link VerifiedToken}. */
    public static final String TOKEN_ATTRIBUTE = "io.bayeux.auth.jwt.token";
    /** The session attribute holding the user id: the token's {@code sub}, a {@code String}. */
    public static final String USER_ID_ATTRIBUTE = "io.bayeux.auth.jwt.userId";
    /** Where the server asks for a new token and the client sends it. */
    public static final String REFRESH_CHANNEL = "/service/token";

    private final BayeuxServer bayeux;
    private final JwtSecurityPolicy policy;
    private final TokenDeadlines deadlines;
    private final Sessions sessions = new Sessions();
    private final RefusalReplies refusals = new RefusalReplies();
    private final ServerChannel.MessageListener refreshes;
    private final ScheduledThreadPoolExecutor sweeper;
    /** Where verified users are associated, or null; set once by {@link #associateUsers}. */
    private volatile Presence presence;

    private JwtAuthentication(BayeuxServer bayeux, JwtConfig config) {
        this.bayeux = bayeux;
        this.policy = new JwtSecurityPolicy(config);
        this.deadlines = new TokenDeadlines(config, policy.verifier());
        this.refreshes = (from, channel, message) -> {
            if (from != null && !from.isLocalSession()) {
                Map<String, Object> data = message.getDataAsMap();
                deadlines.refresh(from, data == null ? null : data.get("token"));
            }
            return true;
        };
        if (config.sweepInterval().isZero()) {
            this.sweeper = null;
        } else {
            this.sweeper = new ScheduledThreadPoolExecutor(1, task -> {
                Thread thread = new Thread(task, "jwt-deadlines");
                thread.setDaemon(true);
                return thread;
            });
            long period = config.sweepInterval().toMillis();
            sweeper.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.MILLISECONDS);
        }
    }

    /** Installs token authentication on {@code bayeux}, replacing its security policy. */
    public static JwtAuthentication install(BayeuxServer bayeux, JwtConfig config) {
        Objects.requireNonNull(bayeux, "bayeux");
        Objects.requireNonNull(config, "config");
        JwtAuthentication authentication = new JwtAuthentication(bayeux, config);
        bayeux.setSecurityPolicy(authentication.policy);
        bayeux.addExtension(authentication.refusals);
        bayeux.addListener(authentication.sessions);
        bayeux.createChannelIfAbsent(REFRESH_CHANNEL, ConfigurableServerChannel.Initializer.persistent())
                .getReference().addListener(authentication.refreshes);
        return authentication;
    }

    public JwtSecurityPolicy policy() {
        return policy;
    }

    /**
     * Associates each session's user id with it in {@code presence} from now on (sessions
     * already there are not), so that {@link Presence#sendMessage(String, String, Object)}
     * reaches the user on whatever node it connected to. The association ends with the session.
     */
    public void associateUsers(Presence presence) {
        this.presence = Objects.requireNonNull(presence, "presence");
    }

    /** Checks every session's deadline now: asks for refreshes, disconnects the expired. Also run every {@link JwtConfig#sweepInterval()}. */
    public void sweep() {
        deadlines.sweep();
    }

    /** The number of sessions whose tokens are tracked. */
    public int trackedSessions() {
        return deadlines.size();
    }

    /** Stops checking deadlines and uninstalls the extension and listeners (the security policy stays). */
    @Override
    public void close() {
        if (sweeper != null) {
            sweeper.shutdownNow();
        }
        bayeux.removeExtension(refusals);
        bayeux.removeListener(sessions);
        ServerChannel channel = bayeux.getChannel(REFRESH_CHANNEL);
        if (channel != null) {
            channel.removeListener(refreshes);
        }
    }

    @Override
    public String toString() {
        return "JwtAuthentication[" + policy + ", " + deadlines + "]";
    }

    /** Tracks the sessions the policy let in, and associates their users. */
    private final class Sessions implements BayeuxServer.SessionListener {
        @Override
        public void sessionAdded(ServerSession session, ServerMessage message) {
            if (session.getAttribute(TOKEN_ATTRIBUTE) instanceof VerifiedToken token) {
                deadlines.track(session, token);
                Presence users = presence;
                if (users != null) {
                    users.associate(token.subject(), session);
                }
            }
        }

        @Override
        public void sessionRemoved(ServerSession session, ServerMessage message, boolean timeout) {
            deadlines.untrack(session);
        }
    }

    /** Puts the reason of a refused handshake in its error: {@code 403:token_expired:handshake_denied}. */
    private static final class RefusalReplies implements BayeuxServer.Extension, NonBlocking {
        @Override
        public boolean sendMeta(ServerSession to, ServerMessage.Mutable message) {
            if (to != null && Channel.META_HANDSHAKE.equals(message.getChannel()) && !message.isSuccessful()
                    && to.getAttribute(JwtSecurityPolicy.REFUSAL_ATTRIBUTE) instanceof String reason) {
                message.put(Message.ERROR_FIELD, "403:" + reason + ":handshake_denied");
            }
            return true;
        }
    }
}
