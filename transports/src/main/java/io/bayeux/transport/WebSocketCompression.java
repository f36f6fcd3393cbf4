package io.bayeux.transport;

import java.time.Duration;
import java.util.Objects;

/**
 * How a server compresses WebSocket messages with {@code permessage-deflate} (RFC 7692): an
 * immutable value. By default the server answers every accepted offer with
 * {@code server_no_context_takeover} and {@code client_no_context_takeover}, so that no zlib
 * state lives between messages: an idle connection holds none, and a broadcast is compressed
 * once for all the subscribers that negotiated the extension. With {@link #context()} on, a
 * client that did not ask for {@code server_no_context_takeover} gets its own compression
 * context instead (see {@link Context}).
 *
 * @param enabled    whether the extension is negotiated at all; default true (as CometD 8 does)
 * @param level      the deflate level, 1 (fastest) to 9; default {@value #DEFAULT_LEVEL}
 * @param windowBits the base-two logarithm of the LZ77 window the server compresses with, 9 to 15;
 *                   default {@value #DEFAULT_WINDOW_BITS}. An offer that asks for a smaller window
 *                   ({@code server_max_window_bits}) is declined, so every connection can share a
 *                   broadcast's compressed bytes. A client offering {@code client_max_window_bits}
 *                   is told to use at most this window too.
 * @param memLevel   how much memory the deflater uses for its state, 1 to 9; default {@value #DEFAULT_MEM_LEVEL}.
 *                   The defaults ({@value #DEFAULT_WINDOW_BITS}, {@value #DEFAULT_MEM_LEVEL}) compress with the
 *                   JDK's zlib; other values with JZlib.
 * @param minBytes   the smallest message compressed, in bytes of JSON: smaller ones go uncompressed
 *                   (RSV1 clear) by the shared compression; default {@value #DEFAULT_MIN_BYTES}
 * @param context    whether and how connections keep their own compression context; default
 *                   {@link Context#OFF}
 */
public record WebSocketCompression(boolean enabled, int level, int windowBits, int memLevel, int minBytes, Context context) {
    /** The default level: the fastest, a few percent larger than 9 on JSON (as for gzip). */
    public static final int DEFAULT_LEVEL = 1;
    /** The default window: 32 KiB, the largest. */
    public static final int DEFAULT_WINDOW_BITS = 15;
    /** zlib's default memory level. */
    public static final int DEFAULT_MEM_LEVEL = 8;
    /** The default least message compressed: below it deflate's own overhead eats most of the gain. */
    public static final int DEFAULT_MIN_BYTES = 128;
    /** The defaults: on. */
    public static final WebSocketCompression DEFAULT =
            new WebSocketCompression(true, DEFAULT_LEVEL, DEFAULT_WINDOW_BITS, DEFAULT_MEM_LEVEL, DEFAULT_MIN_BYTES, Context.OFF);
    /** Off: no offer is accepted. */
    public static final WebSocketCompression OFF = DEFAULT.withEnabled(false);

    /** Checks every number, naming the bad one. */
    public WebSocketCompression {
        check("level", level, 1, 9);
        // zlib turns a raw deflate window of 8 into 9: a client that asked for 8 would get more.
        check("windowBits", windowBits, 9, 15);
        check("memLevel", memLevel, 1, 9);
        if (minBytes < 0) {
            throw new IllegalArgumentException("minBytes must not be negative: " + minBytes);
        }
        Objects.requireNonNull(context, "context");
    }

    /** The shared compression only ({@link Context#OFF}), with these numbers. */
    public WebSocketCompression(boolean enabled, int level, int windowBits, int memLevel, int minBytes) {
        this(enabled, level, windowBits, memLevel, minBytes, Context.OFF);
    }

    private static void check(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be " + min + " to " + max + ": " + value);
        }
    }

    /** This value, turned on or off. */
    public WebSocketCompression withEnabled(boolean enabled) {
        return new WebSocketCompression(enabled, level, windowBits, memLevel, minBytes, context);
    }

    /** This value with connections' compression contexts as {@code context} says. */
    public WebSocketCompression withContext(Context context) {
        return new WebSocketCompression(enabled, level, windowBits, memLevel, minBytes, context);
    }

    /** This value with connections' compression contexts on or off, the context's other settings kept. */
    public WebSocketCompression withContext(boolean enabled) {
        return withContext(context.withEnabled(enabled));
    }

    /** Whether the compressor is the JDK's zlib (the default window and memory level), else JZlib. */
    public boolean usesJdkZlib() {
        return windowBits == DEFAULT_WINDOW_BITS && memLevel == DEFAULT_MEM_LEVEL;
    }

    /**
     * Compression with a context per connection (context takeover, RFC 7692 7.1.1), opt-in.
     * When on, an offer that does not ask for {@code server_no_context_takeover} is answered
     * without it, and that connection's messages are compressed against what it sent before:
     * a message refers back to earlier ones, so small chat messages shrink about twice as much
     * as alone. The search for what to refer to is done once per message (and event loop), not
     * once per connection: a broadcast's matches are found against the last messages of its own
     * channel, which its subscribers were sent too, and each connection only writes them with
     * the distances of its own stream (a match into a message the connection was not sent, or
     * sent more than its window ago, is written as literals). A connection keeps, while busy,
     * where it sent the last 16 broadcasts of each of 16 channels at most (about 2.4 KiB); the
     * loop keeps each busy channel's last 16 messages with their matches (of 1,024 channels at
     * most, the least recently used dropped first). A connection's part is dropped once unused
     * for {@code releaseAfter}, so an idle connection holds nothing (after that its frames refer
     * to nothing before, which the client's inflater inflates the same); a channel's once unused
     * for as long and remembered by no connection that keeps its part (a room quiet for a while
     * whose subscribers are busy in others is still matched into). Every message is
     * compressed, whatever {@link #minBytes()}: with a context even a 60-byte reply shrinks.
     * Clients that ask for {@code server_no_context_takeover} get the shared compression.
     *
     * @param enabled        whether connections may keep a context; default false
     * @param windowBits     the base-two logarithm of the farthest a match reaches back in a
     *                       connection's stream, 9 to 15 (less if the client asks for less with
     *                       {@code server_max_window_bits}); default {@value #DEFAULT_WINDOW_BITS}.
     *                       It costs the server nothing: the client's inflater keeps the window
     * @param dictionaryBits the base-two logarithm of how many bytes of its channel's last
     *                       messages (16 at most) a message's matches are searched in, 9 to 16; default
     *                       {@value #DEFAULT_DICTIONARY_BITS} (2 KiB: about ten chat messages)
     * @param releaseAfter   how long a connection sends nothing compressed before what it keeps
     *                       is dropped (a channel: and no connection keeping its part was sent
     *                       its last messages), positive; default 1 s
     */
    public record Context(boolean enabled, int windowBits, int dictionaryBits, Duration releaseAfter) {
        /** The default window: deflate's largest, which every client's inflater has unless it asks for less. */
        public static final int DEFAULT_WINDOW_BITS = 15;
        /** The default size of a channel's last messages searched for matches. */
        public static final int DEFAULT_DICTIONARY_BITS = 11;
        /** The default time a connection keeps its state after its last compressed message. */
        public static final Duration DEFAULT_RELEASE_AFTER = Duration.ofSeconds(1);
        /** Off: every connection gets the shared compression. */
        public static final Context OFF = new Context(false, DEFAULT_WINDOW_BITS, DEFAULT_DICTIONARY_BITS, DEFAULT_RELEASE_AFTER);
        /** On, with the defaults. */
        public static final Context ON = OFF.withEnabled(true);

        /** Checks every setting, naming the bad one. */
        public Context {
            // Not the enclosing record's check: the constants of each refer to the other's.
            if (windowBits < 9 || windowBits > 15) {
                throw new IllegalArgumentException("context windowBits must be 9 to 15: " + windowBits);
            }
            if (dictionaryBits < 9 || dictionaryBits > 16) {
                throw new IllegalArgumentException("context dictionaryBits must be 9 to 16: " + dictionaryBits);
            }
            Objects.requireNonNull(releaseAfter, "releaseAfter");
            if (releaseAfter.isNegative() || releaseAfter.isZero()) {
                throw new IllegalArgumentException("releaseAfter must be positive: " + releaseAfter);
            }
        }

        /** This value, turned on or off. */
        public Context withEnabled(boolean enabled) {
            return new Context(enabled, windowBits, dictionaryBits, releaseAfter);
        }
    }
}
