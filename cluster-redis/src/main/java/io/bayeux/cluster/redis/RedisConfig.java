package io.bayeux.cluster.redis;

import io.bayeux.api.ChannelId;
import io.lettuce.core.RedisURI;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How a node joins a cluster on Redis (or Valkey): the server's URI, the channels it shares,
 * whether it shares presence, and how it rides out an outage. An immutable value made by
 * {@link #builder()}, read by {@link RedisNode#start} (or by {@link RedisCluster} and
 * {@link RedisSeti} directly).
 *
 * <pre>{@code
 * RedisConfig config = RedisConfig.builder().uri("redis://127.0.0.1:6379").channel("/chat/**").build();
 * }</pre>
 *
 * <p>Defaults: no URI (one is required), no channels, presence on with a TTL of
 * {@value #DEFAULT_PRESENCE_TTL_MILLIS} ms, prefix {@value #DEFAULT_PREFIX}, a buffer of
 * {@value #DEFAULT_BUFFER_SIZE} messages while Redis is away, reconnection back-off up to
 * {@value #DEFAULT_MAX_RECONNECT_DELAY_MILLIS} ms, settle delay
 * {@value #DEFAULT_SETTLE_DELAY_MILLIS} ms. {@link Builder#build()} refuses a bad setting with an
 * {@link IllegalArgumentException} that names it and its value.
 */
public final class RedisConfig {
    /** The default prefix of every Redis channel and key a cluster uses. */
    public static final String DEFAULT_PREFIX = "bayeux:";
    public static final int DEFAULT_BUFFER_SIZE = 10_000;
    public static final long DEFAULT_PRESENCE_TTL_MILLIS = 10_000;
    public static final long DEFAULT_MAX_RECONNECT_DELAY_MILLIS = 5_000;
    public static final long DEFAULT_SETTLE_DELAY_MILLIS = 1_000;
    /** The shortest presence TTL: its heartbeat runs every third of it. */
    public static final Duration MIN_PRESENCE_TTL = Duration.ofMillis(300);

    private final String uri;
    private final RedisURI redisURI;
    private final List<String> channels;
    private final boolean presence;
    private final Duration presenceTtl;
    private final String prefix;
    private final int bufferSize;
    private final Duration maxReconnectDelay;
    private final Duration settleDelay;

    private RedisConfig(Builder builder, RedisURI redisURI) {
        this.uri = builder.uri;
        this.redisURI = redisURI;
        this.channels = List.copyOf(builder.channels);
        this.presence = builder.presence;
        this.presenceTtl = builder.presenceTtl;
        this.prefix = builder.prefix;
        this.bufferSize = builder.bufferSize;
        this.maxReconnectDelay = builder.maxReconnectDelay;
        this.settleDelay = builder.settleDelay;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The Redis (or Valkey) server, as given: {@code redis://HOST:PORT}, {@code rediss://...}. */
    public String uri() {
        return uri;
    }

    /** {@link #uri()} as parsed by Lettuce. */
    RedisURI redisURI() {
        return redisURI;
    }

    /** The channels (wildcards allowed) shared with the other nodes; none by default. */
    public List<String> channels() {
        return channels;
    }

    /** Whether {@link RedisNode} starts a {@link RedisSeti} (default true). */
    public boolean presence() {
        return presence;
    }

    /** How long a node's users outlive its last presence heartbeat (default 10 s; heartbeat every third of it). */
    public Duration presenceTtl() {
        return presenceTtl;
    }

    /** The prefix of every Redis channel and key the cluster uses (default {@value #DEFAULT_PREFIX}). */
    public String prefix() {
        return prefix;
    }

    /** How many messages for the other nodes wait, at most, while Redis is away (default 10,000). */
    public int bufferSize() {
        return bufferSize;
    }

    /** The longest wait between two attempts to reach Redis again (default 5 s; from 100 ms, doubling). */
    public Duration maxReconnectDelay() {
        return maxReconnectDelay;
    }

    /**
     * How long, once Redis is back, the messages that waited for it keep waiting, so that the
     * other nodes subscribe again first (default 1 s).
     */
    public Duration settleDelay() {
        return settleDelay;
    }

    @Override
    public String toString() {
        return "RedisConfig[" + redisURI + ", channels=" + channels + ", presence=" + (presence ? presenceTtl : "off")
                + ", prefix=" + prefix + ", bufferSize=" + bufferSize + "]";
    }

    /** Collects the settings; not thread-safe. {@link #build()} checks them all. */
    public static final class Builder {
        private String uri;
        private final List<String> channels = new ArrayList<>();
        private boolean presence = true;
        private Duration presenceTtl = Duration.ofMillis(DEFAULT_PRESENCE_TTL_MILLIS);
        private String prefix = DEFAULT_PREFIX;
        private int bufferSize = DEFAULT_BUFFER_SIZE;
        private Duration maxReconnectDelay = Duration.ofMillis(DEFAULT_MAX_RECONNECT_DELAY_MILLIS);
        private Duration settleDelay = Duration.ofMillis(DEFAULT_SETTLE_DELAY_MILLIS);

        private Builder() {
        }

        /** The Redis server: {@code redis://HOST:PORT} (required). */
        public Builder uri(String uri) {
            this.uri = uri;
            return this;
        }

        /** A channel (or wildcard) shared with the other nodes; may be repeated. */
        public Builder channel(String channel) {
            channels.add(channel);
            return this;
        }

        /** {@link #channel} for each of {@code channels}. */
        public Builder channels(List<String> channels) {
            channels.forEach(this::channel);
            return this;
        }

        public Builder presence(boolean presence) {
            this.presence = presence;
            return this;
        }

        public Builder presenceTtl(Duration presenceTtl) {
            this.presenceTtl = presenceTtl;
            return this;
        }

        public Builder prefix(String prefix) {
            this.prefix = prefix;
            return this;
        }

        public Builder bufferSize(int bufferSize) {
            this.bufferSize = bufferSize;
            return this;
        }

        public Builder maxReconnectDelay(Duration maxReconnectDelay) {
            this.maxReconnectDelay = maxReconnectDelay;
            return this;
        }

        public Builder settleDelay(Duration settleDelay) {
            this.settleDelay = settleDelay;
            return this;
        }

        /**
         * The config, once every setting is checked.
         *
         * @throws IllegalArgumentException naming the first bad setting and its value
         */
        public RedisConfig build() {
            RedisURI parsed = parse(uri);
            for (String channel : channels) {
                check(channel != null, "channel", null, "must not be null");
                try {
                    ChannelId.of(channel);
                } catch (RuntimeException x) {
                    throw new IllegalArgumentException("RedisConfig channel = '" + channel + "': not a channel: " + x.getMessage(), x);
                }
            }
            check(prefix != null, "prefix", null, "must not be null");
            check(bufferSize >= 1, "bufferSize", bufferSize, "must be at least 1");
            checkDuration("presenceTtl", presenceTtl, MIN_PRESENCE_TTL);
            checkDuration("maxReconnectDelay", maxReconnectDelay, Duration.ofMillis(1));
            checkDuration("settleDelay", settleDelay, Duration.ZERO);
            return new RedisConfig(this, parsed);
        }

        private static RedisURI parse(String uri) {
            check(uri != null && !uri.isBlank(), "uri", uri == null ? null : "'" + uri + "'", "is required (redis://HOST:PORT)");
            try {
                return RedisURI.create(uri);
            } catch (RuntimeException x) {
                throw new IllegalArgumentException("RedisConfig uri = '" + uri + "': not a Redis URI (redis://HOST:PORT): " + x.getMessage(), x);
            }
        }

        private static void checkDuration(String name, Duration value, Duration min) {
            check(value != null, name, null, "must not be null");
            check(value.compareTo(min) >= 0, name, value, "must be at least " + min);
        }

        private static void check(boolean ok, String name, Object value, String rule) {
            if (!ok) {
                throw new IllegalArgumentException("RedisConfig " + name + " = " + value + ": " + rule);
            }
        }
    }
}
