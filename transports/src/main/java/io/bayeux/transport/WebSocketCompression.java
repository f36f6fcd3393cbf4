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
     * without it, and that connection's compressed messages go through its own deflater, which
     * keeps its window between messages: a message refers back to the ones before it, so small
     * chat messages shrink several times more than alone. The price is CPU (each message is
     * compressed for each connection it goes to, not once per broadcast) and memory while busy:
     * the deflater (LZ77 over the window with deflate's fixed Huffman codes, on the heap: twice the
     * window in bytes and a table of {@code 2^(memLevel + 6)} 32-bit entries, 12 KiB at the
     * defaults) is made when a frame needs it and dropped when
     * the connection has sent nothing compressed for {@code releaseAfter}, so an idle connection
     * holds none (a fresh deflater's output never refers back, so the client's inflater keeps
     * working). Every message is compressed, whatever {@link #minBytes()}: with a context even a
     * 60-byte reply shrinks. Clients that ask for {@code server_no_context_takeover} get the
     * shared compression.
     *
     * @param enabled      whether connections may keep a context; default false
     * @param windowBits   the base-two logarithm of a connection's window, 9 to 15; default
     *                     {@value #DEFAULT_WINDOW_BITS} (a 4 KiB window: about thirty chat messages)
     * @param memLevel     the size of a connection's deflater's hash table, {@code 2^(memLevel + 6)}
     *                     entries (at least 256), 1 to 9; default {@value #DEFAULT_MEM_LEVEL}
     * @param releaseAfter how long a connection sends nothing compressed before its deflater is
     *                     dropped, positive; default 1 s
     */
    public record Context(boolean enabled, int windowBits, int memLevel, Duration releaseAfter) {
        /** The default window of a connection's deflater. */
        public static final int DEFAULT_WINDOW_BITS = 12;
        /** The default memory level of a connection's deflater. */
        public static final int DEFAULT_MEM_LEVEL = 4;
        /** The default time a connection keeps its deflater after its last compressed message. */
        public static final Duration DEFAULT_RELEASE_AFTER = Duration.ofSeconds(1);
        /** Off: every connection gets the shared compression. */
        public static final Context OFF = new Context(false, DEFAULT_WINDOW_BITS, DEFAULT_MEM_LEVEL, DEFAULT_RELEASE_AFTER);
        /** On, with the defaults. */
        public static final Context ON = OFF.withEnabled(true);

        /** Checks every setting, naming the bad one. */
        public Context {
            // Not the enclosing record's check: the constants of each refer to the other's.
            if (windowBits < 9 || windowBits > 15) {
                throw new IllegalArgumentException("context windowBits must be 9 to 15: " + windowBits);
            }
            if (memLevel < 1 || memLevel > 9) {
                throw new IllegalArgumentException("context memLevel must be 1 to 9: " + memLevel);
            }
            Objects.requireNonNull(releaseAfter, "releaseAfter");
            if (releaseAfter.isNegative() || releaseAfter.isZero()) {
                throw new IllegalArgumentException("releaseAfter must be positive: " + releaseAfter);
            }
        }

        /** This value, turned on or off. */
        public Context withEnabled(boolean enabled) {
            return new Context(enabled, windowBits, memLevel, releaseAfter);
        }
    }
}
