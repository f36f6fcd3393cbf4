package io.bayeux.client.ext;

import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Token authentication, client side (the server side is {@code bayeux-auth-jwt}): puts the
 * current token in every handshake's {@code ext.token}, and when the server asks for a new one
 * on {@value #CHANNEL} ({@code {"action":"refresh"}}), gets it from the application's
 * {@code refresher} and publishes {@code {"token": ...}} there, without reconnecting.
 *
 * <pre>{@code
 * client.addExtension(new TokenExtension(token, () -> myAuthServer.fetchToken()));
 * }</pre>
 *
 * <p>A refresher whose future fails, or yields {@code null}, sends nothing: the server then
 * disconnects the session once the old token's grace period ends. Thread-safe: the current token
 * is a volatile field; the refresher is called on the thread that received the request and must
 * not block (return a future that completes later instead).
 */
public final class TokenExtension implements ClientSession.Extension {
    /** The service channel of the refresh flow. */
    public static final String CHANNEL = "/service/token";
    /** The handshake's {@code ext} field that carries the token. */
    public static final String TOKEN_FIELD = "token";

    private static final Logger LOG = LoggerFactory.getLogger(TokenExtension.class);

    private final Supplier<CompletableFuture<String>> refresher;
    /** The token the next handshake sends, and the last one sent on refresh. */
    private volatile String token;

    /**
     * @param token     the token of the first handshake
     * @param refresher asked for a new token when the server requests one
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
        CompletableFuture<String> next;
        try {
            next = refresher.get();
        } catch (RuntimeException x) {
            LOG.warn("Token refresher failed", x);
            return;
        }
        next.whenComplete((fresh, failure) -> {
            if (failure != null || fresh == null) {
                LOG.warn("No new token: {}", failure == null ? "the refresher gave none" : failure.toString());
                return;
            }
            token = fresh;
            session.getChannel(CHANNEL).publish(Map.of(TOKEN_FIELD, fresh));
        });
    }

    @Override
    public String toString() {
        return "TokenExtension[" + CHANNEL + "]";
    }
}
