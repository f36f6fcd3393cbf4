package io.bayeux.transport.internal.websocket;

import java.util.Arrays;

/**
 * Bits put one after the other, the first the lowest of the first word, as deflate writes
 * them; made once and copied into many payloads ({@link BitWriter#bits}).
 *
 * <p>Not thread-safe: a builder per event loop, reset for each message.
 */
final class BitString {
    private long[] words = new long[64];
    private int count;

    void reset() {
        Arrays.fill(words, 0, Math.min(words.length, (count >>> 6) + 1), 0L);
        count = 0;
    }

    /** The bits put so far. */
    int count() {
        return count;
    }

    /** Puts the {@code n <= 32} low bits of {@code value}. */
    void put(long value, int n) {
        int word = count >>> 6;
        if (word + 2 > words.length) {
            words = Arrays.copyOf(words, words.length * 2);
        }
        int shift = count & 63;
        words[word] |= value << shift;
        if (shift + n > 64) {
            words[word + 1] |= value >>> (64 - shift);
        }
        count += n;
    }

    void literal(int symbol) {
        int code = FixedCodes.LITERAL[symbol];
        put(code & 0xFFFFFF, code >>> 24);
    }

    void match(int length, int distance) {
        int code = FixedCodes.LENGTH[length - 3];
        put(code & 0xFFFFFF, code >>> 24);
        long d = FixedCodes.distance(distance);
        put(d & 0xFFFFFFFFL, (int) (d >>> 32));
    }

    /** A copy of the bits put, with a spare word so that a reader may look one word ahead. */
    long[] toWords() {
        return Arrays.copyOf(words, (count >>> 6) + 2);
    }
}
