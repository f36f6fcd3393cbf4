package io.bayeux.auth.jwt;

import io.bayeux.api.ChannelId;

import java.util.Collection;

/**
 * Whether granted channel patterns cover a channel, or a wildcard subscription: {@code /chat/*}
 * covers {@code /chat/lobby} and itself; {@code /chat/**} covers {@code /chat/a/b},
 * {@code /chat/*} and {@code /chat/a/**}; a plain channel covers only itself. Stateless.
 */
final class ChannelPatterns {
    private ChannelPatterns() {
    }

    /** Whether {@code pattern} is a valid Bayeux channel name, wildcards allowed. */
    static boolean isValid(String pattern) {
        return pattern != null && ChannelId.isValid(pattern);
    }

    /** Whether one of {@code patterns} covers every channel that {@code channel} names. */
    static boolean anyCovers(Collection<String> patterns, String channel) {
        for (String pattern : patterns) {
            if (covers(pattern, channel)) {
                return true;
            }
        }
        return false;
    }

    /** Whether every channel matched by {@code channel} (itself, when it is no wildcard) is matched by {@code pattern}. */
    static boolean covers(String pattern, String channel) {
        if (pattern.equals(channel)) {
            return true;
        }
        ChannelId granted = ChannelId.of(pattern);
        ChannelId asked = ChannelId.of(channel);
        if (!asked.isWild()) {
            return granted.matches(asked);
        }
        if (!granted.isDeepWild()) {
            return false;
        }
        String grantedPrefix = pattern.substring(0, pattern.length() - 3);
        String askedPrefix = channel.substring(0, channel.lastIndexOf('/'));
        return askedPrefix.equals(grantedPrefix) || askedPrefix.startsWith(grantedPrefix + "/");
    }
}
