package io.bayeux.auth.jwt;

import io.bayeux.api.server.BayeuxContext;
import io.bayeux.api.server.ServerMessage;

import java.util.Map;
import java.util.Objects;

/**
 * Where a handshake's token is read from. Sources are tried in the order they are configured
 * ({@link JwtConfig.Builder#tokenSources}); the first one that has a token is used, the others
 * are not looked at. Immutable.
 */
public sealed interface TokenSource {
    /** The token in the handshake's {@code ext}, as the string field {@code field}; {@code ext.token} is the default source. */
    static TokenSource ext(String field) {
        return new Ext(field);
    }

    /**
     * The token in a request header (for WebSocket, the upgrade request's), with a leading
     * {@code Bearer } (any case) removed: {@code header("Authorization")}.
     */
    static TokenSource header(String name) {
        return new Header(name);
    }

    /** The token in a cookie the request carried. */
    static TokenSource cookie(String name) {
        return new Cookie(name);
    }

    /** The token this source finds in {@code handshake}, or {@code null}. */
    String read(ServerMessage handshake);

    /** {@link TokenSource#ext(String)}. */
    record Ext(String field) implements TokenSource {
        public Ext {
            Objects.requireNonNull(field, "field");
        }

        @Override
        public String read(ServerMessage handshake) {
            Map<String, Object> ext = handshake.getExt();
            return ext != null && ext.get(field) instanceof String token ? token : null;
        }
    }

    /** {@link TokenSource#header(String)}. */
    record Header(String name) implements TokenSource {
        public Header {
            Objects.requireNonNull(name, "name");
        }

        @Override
        public String read(ServerMessage handshake) {
            BayeuxContext context = handshake.getBayeuxContext();
            String value = context == null ? null : context.getHeader(name);
            if (value != null && value.regionMatches(true, 0, "Bearer ", 0, 7)) {
                value = value.substring(7).strip();
            }
            return value;
        }
    }

    /** {@link TokenSource#cookie(String)}. */
    record Cookie(String name) implements TokenSource {
        public Cookie {
            Objects.requireNonNull(name, "name");
        }

        @Override
        public String read(ServerMessage handshake) {
            BayeuxContext context = handshake.getBayeuxContext();
            return context == null ? null : context.getCookie(name);
        }
    }
}
