package io.bayeux.cluster.redis;

import io.bayeux.api.ChannelId;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which channels a cluster shares (the observed patterns, wildcards allowed), and which Redis
 * channel or pattern a local subscription needs: {@code <prefix><channel>} for a channel, a
 * {@code PSUBSCRIBE} pattern under the parent for a wildcard. On a Redis Cluster the channel is
 * hash-tagged, {@code <prefix>{<channel>}}: its messages and its history's keys
 * ({@code <prefix>history:{<channel>}:...}) live on one slot, so one shard.
 *
 * <p>Thread-safe: the patterns are a concurrent set, everything else is final.
 */
final class ObservedChannels {
    private final String prefix;
    private final boolean tagged;
    private final Set<String> patterns = ConcurrentHashMap.newKeySet();

    ObservedChannels(String prefix) {
        this(prefix, false);
    }

    /** @param tagged whether a channel's Redis name carries it as a hash tag (on a Redis Cluster) */
    ObservedChannels(String prefix, boolean tagged) {
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        this.tagged = tagged;
    }

    String prefix() {
        return prefix;
    }

    /** Shares {@code channel} (perhaps a wildcard); fails on a malformed channel. */
    void add(String channel) {
        ChannelId.of(channel);
        patterns.add(channel);
    }

    void remove(String channel) {
        patterns.remove(channel);
    }

    Set<String> patterns() {
        return Set.copyOf(patterns);
    }

    /** Whether a message on {@code channelId} (not a wildcard) is shared. */
    boolean isObserved(String channelId) {
        ChannelId id = ChannelId.of(channelId);
        if (id.isWild() || id.isMeta() || id.isService()) {
            return false;
        }
        for (String pattern : patterns) {
            if (ChannelId.of(pattern).matches(id)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a subscription to {@code channelId} (perhaps a wildcard) may need messages from other nodes. */
    boolean isRelevant(String channelId) {
        ChannelId id = ChannelId.of(channelId);
        if (!id.isWild()) {
            return isObserved(channelId);
        }
        if (id.isMeta() || id.isService()) {
            return false;
        }
        String parent = parentOf(id);
        ChannelId sample = ChannelId.of(parent + "/_");
        for (String pattern : patterns) {
            ChannelId p = ChannelId.of(pattern);
            // /chat/** observed and /chat/* subscribed; or /chat/room observed and /chat/* subscribed.
            if (p.equals(id) || p.matches(sample) || (!p.isWild() && id.matches(p))
                    || (p.isWild() && id.isDeepWild() && p.getId().startsWith(parent + "/"))) {
                return true;
            }
        }
        return false;
    }

    /** The Redis channel or pattern a subscription to {@code channelId} needs. */
    String redisName(String channelId) {
        ChannelId id = ChannelId.of(channelId);
        if (!id.isWild()) {
            return redisChannel(channelId);
        }
        // Redis' * matches across '/': a wider pattern; what it brings reaches only matching subscribers.
        return escapeGlob(prefix + parentOf(id)) + "/*";
    }

    /** The channel above the wildcard {@code id}'s last segment: empty for {@code /*} and {@code /**}. */
    private static String parentOf(ChannelId id) {
        String parent = id.getParent();
        return parent == null ? "" : parent;
    }

    /** The Redis channel a message on {@code channelId} is published to. */
    String redisChannel(String channelId) {
        return tagged ? prefix + "{" + channelId + "}" : prefix + channelId;
    }

    /** Whether a Redis subscription named {@code name} (a channel, or a pattern of {@link #redisName}) brings {@code redisChannel}. */
    static boolean covers(String name, String redisChannel) {
        return name.equals(redisChannel)
                || (isPattern(name) && redisChannel.startsWith(name.substring(0, name.length() - 1).replace("\\", "")));
    }

    /** Whether {@code name}, made by {@link #redisName}, is a pattern ({@code PSUBSCRIBE}). */
    static boolean isPattern(String name) {
        return name.endsWith("/*");
    }

    /** {@code s} with Redis' glob characters escaped, to match itself in a pattern. */
    static String escapeGlob(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                b.append('\\');
            }
            b.append(c);
        }
        return b.toString();
    }
}
