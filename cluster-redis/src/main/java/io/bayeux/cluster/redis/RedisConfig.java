package io.bayeux.cluster.redis;

import io.bayeux.api.ChannelId;
import io.lettuce.core.RedisURI;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How a node joins a cluster on Redis (or Valkey): the server's URI, the channels it shares,
 * whether it shares presence, and how it rides out an outage. The URI names one server
 * ({@code redis://HOST:PORT}), the Sentinels that name the master
 * ({@code redis-sentinel://HOST:PORT,HOST:PORT/MASTER}) or seeds of a Redis Cluster
 * ({@code redis-cluster://HOST:PORT,HOST:PORT}): see {@link Mode}. An immutable value made by
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

    /** How the URI reaches Redis. */
    public enum Mode {
        /** {@code redis://} or {@code rediss://}: one server. */
        STANDALONE,
        /** {@code redis-sentinel://HOST:PORT,.../MASTER}: the master the Sentinels name, followed across failovers. */
        SENTINEL,
        /** {@code redis-cluster://HOST:PORT,...}: a Redis Cluster found from these seeds; sharded pub/sub, hash-tagged keys. */
        CLUSTER
    }

    static final String SENTINEL_SCHEME = "redis-sentinel://";
    static final String CLUSTER_SCHEME = "redis-cluster://";
    static final String CLUSTER_TLS_SCHEME = "rediss-cluster://";

    private final String uri;
    private final Mode mode;
    private final RedisURI redisURI;
    private final List<RedisURI> seeds;
    private final List<String> channels;
    private final boolean presence;
    private final Duration presenceTtl;
    private final String prefix;
    private final int bufferSize;
    private final Duration maxReconnectDelay;
    private final Duration settleDelay;

    private RedisConfig(Builder builder, Mode mode, List<RedisURI> seeds) {
        this.uri = builder.uri;
        this.mode = mode;
        this.redisURI = seeds.get(0);
        this.seeds = List.copyOf(seeds);
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

    /** The Redis (or Valkey) server, as given: {@code redis://HOST:PORT}, {@code rediss://...}, {@code redis-sentinel://...}, {@code redis-cluster://...}. */
    public String uri() {
        return uri;
    }

    /** How {@link #uri()} reaches Redis: one server, through Sentinel, or a Redis Cluster. */
    public Mode mode() {
        return mode;
    }

    /** {@link #uri()} as parsed by Lettuce (the first seed of a cluster). */
    RedisURI redisURI() {
        return redisURI;
    }

    /** The cluster's seeds, as Lettuce URIs; the one URI otherwise. */
    List<RedisURI> seeds() {
        return seeds;
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
        return "RedisConfig[" + mode + " " + (mode == Mode.CLUSTER ? seeds : redisURI) + ", channels=" + channels + ", presence=" + (presence ? presenceTtl : "off")
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

        /**
         * The Redis server (required): {@code redis://HOST:PORT} (Lettuce's syntax, so
         * {@code rediss://} and {@code redis://:PASSWORD@HOST:PORT/DB} too); the Sentinels of a
         * master, {@code redis-sentinel://HOST:PORT,HOST:PORT/MASTER}; or seeds of a Redis
         * Cluster, {@code redis-cluster://HOST:PORT,HOST:PORT} ({@code rediss-cluster://} for TLS,
         * {@code redis-cluster://:PASSWORD@...} with a password).
         */
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
            check(uri != null && !uri.isBlank(), "uri", uri == null ? null : "'" + uri + "'", "is required (redis://HOST:PORT)");
            String lower = uri.toLowerCase(Locale.ROOT);
            Mode mode = lower.startsWith(CLUSTER_SCHEME) || lower.startsWith(CLUSTER_TLS_SCHEME) ? Mode.CLUSTER
                    : lower.startsWith(SENTINEL_SCHEME) ? Mode.SENTINEL : Mode.STANDALONE;
            List<RedisURI> seeds = switch (mode) {
                case CLUSTER -> clusterSeeds(uri);
                case SENTINEL -> List.of(sentinel(uri));
                case STANDALONE -> List.of(parse(uri, uri));
            };
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
            return new RedisConfig(this, mode, seeds);
        }

        /** {@code uri}, Lettuce's syntax, parsed; errors name {@code given}, what the user wrote. */
        private static RedisURI parse(String uri, String given) {
            try {
                return RedisURI.create(uri);
            } catch (RuntimeException x) {
                throw new IllegalArgumentException("RedisConfig uri = '" + given + "': not a Redis URI (redis://HOST:PORT): " + x.getMessage(), x);
            }
        }

        /** {@code redis-sentinel://[:PASSWORD@]HOST:PORT,HOST:PORT/MASTER}; Lettuce's own {@code ...[/DB]#MASTER} is taken too. */
        private static RedisURI sentinel(String uri) {
            String lettuce = uri;
            int path = uri.indexOf('/', SENTINEL_SCHEME.length());
            if (!uri.contains("#") && path > 0) {
                String master = uri.substring(path + 1);
                check(!master.isEmpty() && !master.chars().allMatch(Character::isDigit), "uri", "'" + uri + "'",
                        "names no master (redis-sentinel://HOST:PORT,HOST:PORT/MASTER)");
                lettuce = uri.substring(0, path) + "#" + master;
            }
            RedisURI parsed = parse(lettuce, uri);
            check(parsed.getSentinelMasterId() != null && !parsed.getSentinels().isEmpty(), "uri", "'" + uri + "'",
                    "names no master (redis-sentinel://HOST:PORT,HOST:PORT/MASTER)");
            return parsed;
        }

        /** {@code redis-cluster://[:PASSWORD@]HOST:PORT,HOST:PORT}: one Lettuce URI per seed, with the password. */
        private static List<RedisURI> clusterSeeds(String uri) {
            boolean tls = uri.regionMatches(true, 0, CLUSTER_TLS_SCHEME, 0, CLUSTER_TLS_SCHEME.length());
            String rest = uri.substring(tls ? CLUSTER_TLS_SCHEME.length() : CLUSTER_SCHEME.length());
            check(!rest.contains("/") && !rest.contains("#"), "uri", "'" + uri + "'", "a cluster has no database or master (redis-cluster://HOST:PORT,HOST:PORT)");
            int at = rest.lastIndexOf('@');
            String credentials = at < 0 ? "" : rest.substring(0, at + 1);
            List<RedisURI> seeds = new ArrayList<>();
            for (String seed : rest.substring(at + 1).split(",")) {
                check(!seed.isBlank(), "uri", "'" + uri + "'", "has an empty seed (redis-cluster://HOST:PORT,HOST:PORT)");
                seeds.add(parse((tls ? "rediss://" : "redis://") + credentials + seed.strip(), uri));
            }
            return seeds;
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
