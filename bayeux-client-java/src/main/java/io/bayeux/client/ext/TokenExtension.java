package io.bayeux.client.ext;

import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSession;
import io.bayeux.api.client.ClientSessionChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Token authentication, client side (the server side is {@code bayeux-auth-jwt}): puts the
 * current token in every handshake's {@code ext.token}; when the server asks for a new one on
 * {@value #CHANNEL} ({@code {"action":"refresh"}}), gets it from the application's
 * {@code refresher} and publishes {@code {"token": ...}} there, without reconnecting; and when a
 * handshake is refused because the token expired or is missing, gets a new one and handshakes
 * again with it.
 *
 * <pre>{@code
 * client.addExtension(new TokenExtension(token, () -> myAuthServer.fetchToken()));
 * }</pre>
 *
 * <p>A refresh request answered by a refresher whose future fails, or yields {@code null}, sends
 * nothing: the server then disconnects the session once the old token's grace period ends, with
 * the advice to handshake again. That handshake carries the old token, now expired, and is refused
 * ({@code 403:token_expired:handshake_denied}, with {@code reconnect: none}).
 *
 * <p>A refused handshake whose reason is one of {@link #REFRESHABLE} ({@code token_expired},
 * {@code token_missing}) makes the extension ask the refresher once for a new token and, when it
 * gets one, handshake again with it, with the fields of the refused handshake; once that session
 * is in, the client subscribes again to what it had subscribed. At most one such handshake follows
 * each refusal: if it is refused too (whatever the reason), or the refresher fails or yields
 * {@code null}, the extension logs a warning and the client stays disconnected until the
 * application handshakes again, so a refresher that keeps giving bad tokens costs one extra
 * handshake, never a loop. The application's own {@code /meta/handshake} listeners and callbacks
 * see every reply, the refusal included. Other refusals ({@code token_signature_invalid}, ...)
 * are left to the application.
 *
 * <p>One extension per client. Thread-safe: the token and the retry state are atomic; the
 * refresher is called on the client's thread that received the request or the refusal and must not
 * block (return a future that completes later instead); the handshake again runs on the thread that
 * completes that future.
 */
public final class TokenExtension implements ClientSession.Extension {
    /** The service channel of the refresh flow. */
    public static final String CHANNEL = "/service/token";
    /** The handshake's {@code ext} field that carries the token. */
    public static final String TOKEN_FIELD = "token";
    /** The reasons of a handshake refusal ({@code 403:<reason>:handshake_denied}) that a new token may cure. */
    public static final Set<String> REFRESHABLE = Set.of("token_expired", "token_missing");

    private static final Logger LOG = LoggerFactory.getLogger(TokenExtension.class);
    /** The fields of a handshake that the client sets itself, not the application. */
    private static final List<String> PROTOCOL_FIELDS = List.of(Message.CHANNEL_FIELD, Message.ID_FIELD, Message.CLIENT_ID_FIELD,
            Message.VERSION_FIELD, Message.MIN_VERSION_FIELD, Message.SUPPORTED_CONNECTION_TYPES_FIELD);

    private final Supplier<CompletableFuture<String>> refresher;
    private final ClientSessionChannel.MessageListener refusals = this::handshakeReplied;
    /** The token the next handshake sends, and the last one sent on refresh. */
    private volatile String token;
    /** The application's fields of the last handshake sent, for the handshake again. */
    private volatile Map<String, Object> handshakeFields = Map.of();
    /** The session whose {@code /meta/handshake} replies this extension hears; set by the first handshake. */
    private final AtomicReference<ClientSession> session = new AtomicReference<>();
    /** Set from the handshake this extension makes after a refusal until its reply: that reply's refusal gets no other. */
    private final AtomicBoolean retrying = new AtomicBoolean();

    /**
     * @param token     the token of the first handshake
     * @param refresher asked for a new token when the server requests one, or refuses a handshake
     *                  for an expired or missing token
     */
    public TokenExtension(String token, Supplier<CompletableFuture<String>> refresher) {
        this.token = Objects.requireNonNull(token, "token");
        this.refresher = Objects.requireNonNull(refresher, "refresher");
    }

    /** The token the next handshake will send. */
    public String getToken() {
        return token;
    }

    /** Replaces the token that the next handshake sends (the current session keeps its own until refreshed). */
    public void setToken(String token) {
        this.token = Objects.requireNonNull(token, "token");
    }

    @Override
    public boolean sendMeta(ClientSession session, Message.Mutable message) {
        if (Channel.META_HANDSHAKE.equals(message.getChannel())) {
            if (this.session.compareAndSet(null, session)) {
                // A listener, not rcvMeta: it hears the reply after the client has handled it and its callback has run,
                // which is where a handshake from the application's code belongs.
                session.getChannel(Channel.META_HANDSHAKE).addListener(refusals);
            }
            handshakeFields = applicationFields(message);
            message.getExt(true).put(TOKEN_FIELD, token);
        }
        return true;
    }

    @Override
    public boolean rcv(ClientSession session, Message.Mutable message) {
        if (CHANNEL.equals(message.getChannel()) && message.getDataAsMap() instanceof Map<String, Object> data) {
            Object action = data.get("action");
            if ("refresh".equals(action)) {
                refresh(session);
            } else if ("refused".equals(action)) {
                LOG.warn("Token refresh refused by the server: {}", data.get("error"));
            }
        }
        return true;
    }

    private void refresh(ClientSession session) {
        fetch().thenAccept(fresh -> {
            if (fresh != null) {
                session.getChannel(CHANNEL).publish(Map.of(TOKEN_FIELD, fresh));
            }
        });
    }

    /** Every {@code /meta/handshake} reply of the session, after its callback. */
    private void handshakeReplied(ClientSessionChannel channel, Message reply) {
        boolean retried = retrying.getAndSet(false);
        if (reply.isSuccessful()) {
            return;
        }
        Object error = reply.get(Message.ERROR_FIELD);
        if (!REFRESHABLE.contains(reason(error))) {
            return;
        }
        if (retried) {
            LOG.warn("Handshake with a new token refused too ({}): not trying again until the application handshakes", error);
            return;
        }
        Map<String, Object> advice = reply.getAdvice();
        if (advice == null || !Message.RECONNECT_NONE_VALUE.equals(advice.get(Message.RECONNECT_FIELD))) {
            // The client handshakes again by itself, as advised: that handshake takes the new token.
            fetch();
            return;
        }
        LOG.info("Handshake refused ({}): handshaking again with a new token", error);
        retrying.set(true);
        Map<String, Object> fields = handshakeFields;
        ClientSession session = channel.getSession();
        fetch().thenAccept(fresh -> {
            if (fresh == null) {
                retrying.set(false);
                return;
            }
            try {
                session.handshake(fields, null);
            } catch (RuntimeException x) {
                // The application handshook (or closed the client) meanwhile.
                retrying.set(false);
                LOG.debug("No handshake again: {}", x.toString());
            }
        });
    }

    /** A new token from the refresher, which becomes the current one; null (logged) when there is none. Never fails. */
    private CompletableFuture<String> fetch() {
        CompletableFuture<String> next;
        try {
            next = Objects.requireNonNull(refresher.get(), "the refresher returned no future");
        } catch (RuntimeException x) {
            LOG.warn("Token refresher failed", x);
            return CompletableFuture.completedFuture(null);
        }
        return next.handle((fresh, failure) -> {
            if (failure != null || fresh == null) {
                LOG.warn("No new token: {}", failure == null ? "the refresher gave none" : failure.toString());
                return null;
            }
            token = fresh;
            return fresh;
        });
    }

    /** The reason of an error {@code 403:<reason>:handshake_denied}, or null. */
    private static String reason(Object error) {
        if (error instanceof String text) {
            String[] parts = text.split(":", 3);
            return parts.length == 3 ? parts[1] : null;
        }
        return null;
    }

    /** The fields of {@code handshake} that the application gave, without the token. */
    private static Map<String, Object> applicationFields(Message handshake) {
        Map<String, Object> fields = new HashMap<>(handshake);
        PROTOCOL_FIELDS.forEach(fields::remove);
        if (fields.get(Message.EXT_FIELD) instanceof Map<?, ?> ext) {
            Map<Object, Object> copy = new HashMap<>(ext);
            copy.remove(TOKEN_FIELD);
            fields.put(Message.EXT_FIELD, copy);
        }
        return Collections.unmodifiableMap(fields);
    }

    @Override
    public String toString() {
        return "TokenExtension[" + CHANNEL + ", retrying=" + retrying.get() + "]";
    }
}
