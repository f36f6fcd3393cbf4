package io.bayeux.transport;

/**
 * How a server compresses WebSocket messages with {@code permessage-deflate} (RFC 7692): an
 * immutable value. Whatever the settings, the server answers every accepted offer with
 * {@code server_no_context_takeover} and {@code client_no_context_takeover}, so that no zlib
 * state lives between messages: an idle connection holds none, and a broadcast is compressed
 * once for all the subscribers that negotiated the extension.
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
 *                   (RSV1 clear); default {@value #DEFAULT_MIN_BYTES}
 */
public record WebSocketCompression(boolean enabled, int level, int windowBits, int memLevel, int minBytes) {
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
            new WebSocketCompression(true, DEFAULT_LEVEL, DEFAULT_WINDOW_BITS, DEFAULT_MEM_LEVEL, DEFAULT_MIN_BYTES);
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
    }

    private static void check(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be " + min + " to " + max + ": " + value);
        }
    }

    /** This value, turned on or off. */
    public WebSocketCompression withEnabled(boolean enabled) {
        return new WebSocketCompression(enabled, level, windowBits, memLevel, minBytes);
    }

    /** Whether the compressor is the JDK's zlib (the default window and memory level), else JZlib. */
    public boolean usesJdkZlib() {
        return windowBits == DEFAULT_WINDOW_BITS && memLevel == DEFAULT_MEM_LEVEL;
    }
}
