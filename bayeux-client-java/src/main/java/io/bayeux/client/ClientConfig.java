package io.bayeux.client;

import io.bayeux.common.json.JacksonJsonCodec;
import io.bayeux.common.json.JsonCodec;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslContext;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The settings of a {@link BayeuxClient} and its transports: an immutable value made by
 * {@link #builder()}. Many clients may share one config, and so one event loop group.
 */
public final class ClientConfig {
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_UPGRADE_TIMEOUT = Duration.ofSeconds(5);
    public static final Duration DEFAULT_MAX_NETWORK_DELAY = Duration.ofSeconds(10);
    public static final Duration DEFAULT_BACKOFF_INCREMENT = Duration.ofSeconds(1);
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_MESSAGE_SIZE = 1024 * 1024;
    public static final int DEFAULT_MAX_PENDING = 10_000;
    /** Headers the transports write themselves, which {@link Builder#header} refuses. */
    private static final Set<String> MANAGED_HEADERS = Set.of("host", "content-length", "content-type", "transfer-encoding",
            "connection", "upgrade", "cookie", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions",
            "sec-websocket-protocol");

    private final EventLoopGroup eventLoopGroup;
    private final SslContext sslContext;
    private final Duration connectTimeout;
    private final Duration upgradeTimeout;
    private final Duration maxNetworkDelay;
    private final Duration backoffIncrement;
    private final Duration maxBackoff;
    private final int maxMessageSize;
    private final int maxPending;
    private final JsonCodec jsonCodec;
    private final Map<String, String> headers;
    private final boolean websocketCompression;

    private ClientConfig(Builder builder) {
        this.eventLoopGroup = builder.eventLoopGroup;
        this.sslContext = builder.sslContext;
        this.connectTimeout = builder.connectTimeout;
        this.upgradeTimeout = builder.upgradeTimeout;
        this.maxNetworkDelay = builder.maxNetworkDelay;
        this.backoffIncrement = builder.backoffIncrement;
        this.maxBackoff = builder.maxBackoff;
        this.maxMessageSize = builder.maxMessageSize;
        this.maxPending = builder.maxPending;
        this.jsonCodec = builder.jsonCodec != null ? builder.jsonCodec : new JacksonJsonCodec();
        this.headers = Map.copyOf(builder.headers);
        this.websocketCompression = builder.websocketCompression;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The event loop group shared by the transports, or null: each client then makes (and stops) its own. */
    public EventLoopGroup eventLoopGroup() {
        return eventLoopGroup;
    }

    /** The TLS context for https/wss URLs, or null for the JDK's default trust. */
    public SslContext sslContext() {
        return sslContext;
    }

    /** How long opening a TCP connection may take; default 10 s. */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    /**
     * How long the WebSocket upgrade (TLS and the HTTP upgrade, once the TCP connection is open)
     * may take; default 5 s. An upgrade that does not complete in time, like one refused or cut,
     * on a WebSocket that has not worked yet makes the client fall back to long-polling.
     */
    public Duration upgradeTimeout() {
        return upgradeTimeout;
    }

    /** How much longer than the server's timeout a reply may take before the connection is deemed dead; default 10 s. */
    public Duration maxNetworkDelay() {
        return maxNetworkDelay;
    }

    /** What each consecutive failure adds to the wait before the next attempt; default 1 s. */
    public Duration backoffIncrement() {
        return backoffIncrement;
    }

    /** The longest wait between attempts; default 30 s. */
    public Duration maxBackoff() {
        return maxBackoff;
    }

    /** The largest message (HTTP body or WebSocket message) accepted; default 1 MiB. */
    public int maxMessageSize() {
        return maxMessageSize;
    }

    /** How many messages may wait while the client is not connected; default 10,000. */
    public int maxPending() {
        return maxPending;
    }

    public JsonCodec jsonCodec() {
        return jsonCodec;
    }

    /** Extra headers sent with every long-polling request and every WebSocket upgrade; none by default. */
    public Map<String, String> headers() {
        return headers;
    }

    /**
     * Whether the WebSocket transport offers permessage-deflate (RFC 7692); default true. A server
     * that accepts it sends large messages compressed; what a message inflates to is bounded by
     * {@link #maxMessageSize()}. The client sends its own messages uncompressed.
     */
    public boolean websocketCompression() {
        return websocketCompression;
    }

    public static final class Builder {
        private EventLoopGroup eventLoopGroup;
        private SslContext sslContext;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration upgradeTimeout = DEFAULT_UPGRADE_TIMEOUT;
        private Duration maxNetworkDelay = DEFAULT_MAX_NETWORK_DELAY;
        private Duration backoffIncrement = DEFAULT_BACKOFF_INCREMENT;
        private Duration maxBackoff = DEFAULT_MAX_BACKOFF;
        private int maxMessageSize = DEFAULT_MAX_MESSAGE_SIZE;
        private int maxPending = DEFAULT_MAX_PENDING;
        private JsonCodec jsonCodec;
        private final Map<String, String> headers = new LinkedHashMap<>();
        private boolean websocketCompression = true;

        private Builder() {
        }

        /** Whether the WebSocket transport offers permessage-deflate; true by default. */
        public Builder websocketCompression(boolean websocketCompression) {
            this.websocketCompression = websocketCompression;
            return this;
        }

        public Builder eventLoopGroup(EventLoopGroup eventLoopGroup) {
            this.eventLoopGroup = Objects.requireNonNull(eventLoopGroup, "eventLoopGroup");
            return this;
        }

        public Builder sslContext(SslContext sslContext) {
            this.sslContext = Objects.requireNonNull(sslContext, "sslContext");
            return this;
        }

        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = positive("connectTimeout", connectTimeout);
            return this;
        }

        public Builder upgradeTimeout(Duration upgradeTimeout) {
            this.upgradeTimeout = positive("upgradeTimeout", upgradeTimeout);
            return this;
        }

        public Builder maxNetworkDelay(Duration maxNetworkDelay) {
            this.maxNetworkDelay = positive("maxNetworkDelay", maxNetworkDelay);
            return this;
        }

        public Builder backoffIncrement(Duration backoffIncrement) {
            this.backoffIncrement = positive("backoffIncrement", backoffIncrement);
            return this;
        }

        public Builder maxBackoff(Duration maxBackoff) {
            this.maxBackoff = positive("maxBackoff", maxBackoff);
            return this;
        }

        public Builder maxMessageSize(int maxMessageSize) {
            if (maxMessageSize < 1024) {
                throw new IllegalArgumentException("maxMessageSize must be at least 1024: " + maxMessageSize);
            }
            this.maxMessageSize = maxMessageSize;
            return this;
        }

        public Builder maxPending(int maxPending) {
            if (maxPending < 1) {
                throw new IllegalArgumentException("maxPending must be positive: " + maxPending);
            }
            this.maxPending = maxPending;
            return this;
        }

        public Builder jsonCodec(JsonCodec jsonCodec) {
            this.jsonCodec = Objects.requireNonNull(jsonCodec, "jsonCodec");
            return this;
        }

        /**
         * Sends a header with every long-polling request and every WebSocket upgrade, e.g.
         * {@code header("Authorization", "Bearer " + token)} for a server whose security policy
         * reads it. Setting a name again replaces its value. Headers the transports manage
         * (Host, Content-Type, Connection, Upgrade, Sec-WebSocket-*, ...) are refused, and so is
         * Cookie: use {@link BayeuxClient#putCookie}.
         */
        public Builder header(String name, String value) {
            if (name == null || !name.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+") || MANAGED_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("Not a header this client may set: " + name);
            }
            if (value == null || value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
                throw new IllegalArgumentException("Invalid value for header " + name + ": " + value);
            }
            headers.put(name, value);
            return this;
        }

        public ClientConfig build() {
            return new ClientConfig(this);
        }

        private static Duration positive(String name, Duration value) {
            if (value == null || value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + " must be positive: " + value);
            }
            return value;
        }
    }
}
