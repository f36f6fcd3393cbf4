package io.bayeux.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A parsed, validated and immutable Bayeux channel name such as {@code /chat/room1}.
 *
 * <p>Names are absolute, made of one or more non-empty segments separated by {@code /}. The
 * last segment may be a wildcard: {@code *} matches exactly one segment, {@code **} matches
 * one or more. A segment written {@code {name}} is a template parameter, used by annotated
 * services ({@link #isTemplate()}, {@link #bind(ChannelId)}).
 *
 * <p>Instances are immutable and safe to share between threads. The wildcard ids that match a
 * channel are computed once, at parse time, because routing asks for them on every publish.
 */
public final class ChannelId {
    public static final String WILD = "*";
    public static final String DEEPWILD = "**";

    private final String id;
    private final String[] segments;
    private final int wild; // 0 = none, 1 = "*", 2 = "**"
    private final List<String> wildIds;
    private final List<String> parameters;

    private ChannelId(String id, String[] segments) {
        this.id = id;
        this.segments = segments;
        String last = segments[segments.length - 1];
        this.wild = DEEPWILD.equals(last) ? 2 : WILD.equals(last) ? 1 : 0;
        this.wildIds = wild == 0 ? computeWildIds(segments) : List.of();
        List<String> params = new ArrayList<>();
        for (String segment : segments) {
            if (isParameter(segment)) {
                params.add(segment.substring(1, segment.length() - 1));
            }
        }
        this.parameters = List.copyOf(params);
    }

    /**
     * Parses and validates a channel name.
     *
     * @throws IllegalArgumentException naming the bad value when it is not a valid channel name
     */
    public static ChannelId of(String id) {
        if (!isValid(id)) {
            throw new IllegalArgumentException("Invalid channel name: '" + id + "'");
        }
        String body = id.substring(1);
        return new ChannelId(id, body.split("/", -1));
    }

    /**
     * Tells whether {@code id} is a valid channel name: starts with {@code /}, has no empty
     * segment, no trailing {@code /}, no whitespace (non-breaking spaces included) or control
     * characters, and wildcards only as the whole last segment.
     */
    public static boolean isValid(String id) {
        if (id == null || id.length() < 2 || id.charAt(0) != '/' || id.charAt(id.length() - 1) == '/') {
            return false;
        }
        int segmentStart = 1;
        for (int i = 1; i <= id.length(); i++) {
            if (i == id.length() || id.charAt(i) == '/') {
                if (i == segmentStart) {
                    return false; // empty segment
                }
                String segment = id.substring(segmentStart, i);
                if (segment.indexOf('*') >= 0) {
                    boolean wildcard = WILD.equals(segment) || DEEPWILD.equals(segment);
                    if (!wildcard || i != id.length()) {
                        return false;
                    }
                }
                segmentStart = i + 1;
            } else {
                char c = id.charAt(i);
                if (c <= ' ' || Character.isWhitespace(c) || Character.isSpaceChar(c) || Character.isISOControl(c)) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean isParameter(String segment) {
        return segment.length() > 2 && segment.charAt(0) == '{' && segment.charAt(segment.length() - 1) == '}';
    }

    private static List<String> computeWildIds(String[] segments) {
        // For /a/b/c: /a/b/*, /a/b/**, /a/**, /** (most specific first).
        List<String> result = new ArrayList<>(segments.length + 1);
        StringBuilder prefix = new StringBuilder();
        String[] prefixes = new String[segments.length];
        for (int i = 0; i < segments.length; i++) {
            prefixes[i] = prefix.toString();
            prefix.append('/').append(segments[i]);
        }
        for (int i = segments.length - 1; i >= 0; i--) {
            if (i == segments.length - 1) {
                result.add(prefixes[i] + "/" + WILD);
            }
            result.add(prefixes[i] + "/" + DEEPWILD);
        }
        return Collections.unmodifiableList(result);
    }

    /** The channel name as a string, e.g. {@code /chat/room1}. */
    public String getId() {
        return id;
    }

    /** The number of segments: {@code /a/b} has depth 2. */
    public int depth() {
        return segments.length;
    }

    /** The segment at {@code index}, counted from 0. */
    public String getSegment(int index) {
        return segments[index];
    }

    /** Whether this is a {@code /meta/...} channel. */
    public boolean isMeta() {
        return Channel.META.equals("/" + segments[0]);
    }

    /** Whether this is a {@code /service/...} channel: never broadcast to subscribers. */
    public boolean isService() {
        return Channel.SERVICE.equals("/" + segments[0]);
    }

    /** Whether messages on this channel are broadcast to subscribers: neither meta nor service. */
    public boolean isBroadcast() {
        return !isMeta() && !isService();
    }

    /** Whether the last segment is {@code *} or {@code **}. */
    public boolean isWild() {
        return wild > 0;
    }

    /** Whether the last segment is {@code *}. */
    public boolean isShallowWild() {
        return wild == 1;
    }

    /** Whether the last segment is {@code **}. */
    public boolean isDeepWild() {
        return wild == 2;
    }

    /** Whether some segment is a template parameter such as {@code {room}}. */
    public boolean isTemplate() {
        return !parameters.isEmpty();
    }

    /** The names of the template parameters, in order. */
    public List<String> getParameters() {
        return parameters;
    }

    /** The parent channel name, or {@code null} for a channel of depth 1. */
    public String getParent() {
        int slash = id.lastIndexOf('/');
        return slash == 0 ? null : id.substring(0, slash);
    }

    /**
     * The wildcard channel names that match this channel, most specific first: for
     * {@code /a/b/c} they are {@code /a/b/*}, {@code /a/b/**}, {@code /a/**} and {@code /**}.
     * Empty for a wildcard channel.
     */
    public List<String> getWildIds() {
        return wildIds;
    }

    /**
     * Whether this channel id matches {@code channel}: equal ids match; {@code /a/*} matches
     * {@code /a/b} but not {@code /a/b/c}; {@code /a/**} matches both. A wildcard
     * {@code channel} is only matched by itself: {@code /a/**} does not match {@code /a/*}.
     */
    public boolean matches(ChannelId channel) {
        if (wild == 0 || channel.wild != 0) {
            return equals(channel);
        }
        int prefixDepth = segments.length - 1;
        if (wild == 1 ? channel.segments.length != prefixDepth + 1 : channel.segments.length <= prefixDepth) {
            return false;
        }
        for (int i = 0; i < prefixDepth; i++) {
            if (!segments[i].equals(channel.segments[i])) {
                return false;
            }
        }
        return true;
    }

    /** Whether this channel is the direct parent of {@code child}. */
    public boolean isParentOf(ChannelId child) {
        return child.segments.length == segments.length + 1 && isAncestorOf(child);
    }

    /** Whether this channel is an ancestor (parent, grand-parent, ...) of {@code descendant}. */
    public boolean isAncestorOf(ChannelId descendant) {
        if (wild != 0 || descendant.segments.length <= segments.length) {
            return false;
        }
        for (int i = 0; i < segments.length; i++) {
            if (!segments[i].equals(descendant.segments[i])) {
                return false;
            }
        }
        return true;
    }

    /**
     * Binds this template to a concrete channel: for the template {@code /chat/{room}} and the
     * channel {@code /chat/lobby}, returns {@code {room=lobby}}. Returns an empty map when the
     * channel does not fit the template (different depth or a literal segment that differs).
     */
    public Map<String, String> bind(ChannelId channel) {
        if (channel.segments.length != segments.length) {
            return Map.of();
        }
        Map<String, String> result = new java.util.LinkedHashMap<>();
        for (int i = 0; i < segments.length; i++) {
            String segment = segments[i];
            if (isParameter(segment)) {
                result.put(segment.substring(1, segment.length() - 1), channel.segments[i]);
            } else if (!segment.equals(channel.segments[i])) {
                return Map.of();
            }
        }
        return Collections.unmodifiableMap(result);
    }

    @Override
    public boolean equals(Object obj) {
        return obj == this || obj instanceof ChannelId other && id.equals(other.id);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return id;
    }

    /** Shorthand for {@code ChannelId.of(a).matches(ChannelId.of(b))}. */
    public static boolean matches(String pattern, String channel) {
        return of(Objects.requireNonNull(pattern)).matches(of(Objects.requireNonNull(channel)));
    }
}
