package io.bayeux.transport.internal.websocket;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Finds a message's LZ77 matches ({@link Matches}) against the messages of a dictionary, those
 * its channel sent last: hash chains over 4-byte prefixes (zlib's way, at most {@value #CHAIN}
 * candidates a position), a match 4 to 258 bytes long that never crosses from one dictionary
 * message into the next. Every position's matches are found (the longest of each candidate
 * nearer than any longer one), then the cheapest way to write the message with them in
 * deflate's fixed codes is worked out from its end (the bits of each literal, and of each match
 * of each length its candidates allow): an optimal parse, where zlib's lazy matching takes the
 * longest match it sees. A match into the dictionary is costed as if it reached
 * {@value #DICTIONARY_SPREAD} times as far back as it does in the dictionary, for a connection
 * is sent other channels' messages between its channel's. Done once per message and event loop,
 * whatever the number of connections it goes to, so it can afford to look harder than a
 * per-connection deflater could.
 *
 * <p>Keeps its buffers between calls; not thread-safe: one per event loop.
 */
final class MatchFinder {
    static final int MIN_MATCH = 4;
    static final int MAX_MATCH = 258;
    static final int MAX_DISTANCE = 32768;
    private static final int CHAIN = 16;
    /**
     * A match this long ends the search of its position and is taken as it is: the positions it
     * covers are not searched, and of its lengths only those up to this one and the whole are
     * costed.
     */
    private static final int NICE = 16;
    /** How many times farther back than in the dictionary a match into it is taken to reach in a connection's stream. */
    private static final int DICTIONARY_SPREAD = 4;
    private static final int HASH_BITS = 13;
    private static final int PRIME = 0x9E3779B1;
    /** Per match length (3 to 258), the bits of its code and extra bits. */
    private static final int[] LENGTH_BITS = new int[MAX_MATCH + 1];
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final Object[] NO_DICTIONARY = {};
    /** The largest buffer kept between calls. */
    private static final int KEEP = 1 << 17;

    static {
        for (int length = 3; length <= MAX_MATCH; length++) {
            LENGTH_BITS[length] = FixedCodes.LENGTH[length - 3] >>> 24;
        }
    }

    /** Per hash, the last position with it, as {@code base + index}; older than {@code base} means none. */
    private final int[] head = new int[1 << HASH_BITS];
    /** Per position of {@link #buf}, the previous one with the same hash (same encoding). */
    private int[] previous = new int[1024];
    /** The dictionary's elements one after the other, then the message's element, then 8 spare bytes. */
    private byte[] buf = new byte[1024];
    /** Per position of the dictionary in {@link #buf}, where its element ends. */
    private int[] endOf = new int[1024];
    /** Where each dictionary element ends in {@link #buf}. */
    private int[] ends = new int[16];
    /** What {@code base} the next call takes: positions of earlier calls read as none. */
    private int generation = 1;
    private int[] ops = new int[8 * Matches.INTS];
    /** Where a message's pieces are encoded before they are copied into its {@link Matches}. */
    private final BitString bits = new BitString();
    private int[] pieces = new int[64 * Matches.PIECE];
    /** Per position of the message, where its matches start in {@link #pairLength} and {@link #pairFrom}. */
    private int[] pairAt = new int[256];
    /** A position's matches: each longer and from farther back than the one before it. */
    private int[] pairLength = new int[1024];
    private int[] pairFrom = new int[1024];
    /** Per position of the message, the fewest bits that write it from there to its end, and the match (its length, or 0 for a literal, and where from) that starts the way. */
    private int[] cost = new int[256];
    private int[] choice = new int[256];
    private int[] choiceFrom = new int[256];

    /**
     * The matches of {@code message} (encoded as {@code array}, a JSON array of one) against the
     * elements of {@code dictionary[0, count)}, oldest first, {@code arrays[j]} being the array of
     * {@code dictionary[j]}; {@code channel} is what the message joins, for the connections to
     * tell its channel (null if it is not a broadcast).
     */
    Matches find(Object message, LoopContexts.Recent channel, byte[] array, Object[] dictionary, byte[][] arrays, int count) {
        int total = array.length - 2;
        for (int j = 0; j < count; j++) {
            total += arrays[j].length - 2;
        }
        if (buf.length < total + 8) {
            buf = new byte[Math.max(total + 8, buf.length * 2)];
            previous = new int[buf.length];
            endOf = new int[buf.length];
        }
        if (ends.length < count) {
            ends = Arrays.copyOf(ends, Math.max(count, ends.length * 2));
        }
        byte[] buf = this.buf;
        int at = 0;
        for (int j = 0; j < count; j++) {
            System.arraycopy(arrays[j], 1, buf, at, arrays[j].length - 2);
            int end = at + arrays[j].length - 2;
            Arrays.fill(endOf, at, end, end);
            at = end;
            ends[j] = at;
        }
        int start = at;
        System.arraycopy(array, 1, buf, start, array.length - 2);
        if (generation > Integer.MAX_VALUE - total - 1) {
            Arrays.fill(head, 0);
            generation = 1;
        }
        int base = generation;
        generation += total + 1;
        int[] head = this.head;
        int[] previous = this.previous;
        int last = total - MIN_MATCH; // the last position whose prefix can be hashed
        for (int i = 0; i < start && i <= last; i++) {
            int h = ((int) INT.get(buf, i) * PRIME) >>> (32 - HASH_BITS);
            previous[i] = head[h];
            head[h] = base + i;
        }
        int size = parse(buf, start, total, base, count);
        if (buf.length > KEEP) {
            // A rare large message does not leave its buffers with the loop.
            this.buf = new byte[1024];
            this.previous = new int[1024];
            this.endOf = new int[1024];
            pairAt = new int[256];
            cost = new int[256];
            choice = new int[256];
            choiceFrom = new int[256];
            pairLength = new int[1024];
            pairFrom = new int[1024];
        }
        Object[] referred = count == 0 ? NO_DICTIONARY : Arrays.copyOf(dictionary, count);
        return encode(message, channel, array, referred, size);
    }

    /** Finds every position's matches, then the cheapest way to write the message with them; fills {@link #ops}, its size. */
    private int parse(byte[] buf, int start, int total, int base, int count) {
        int n = total - start;
        if (pairAt.length < n + 2) {
            int grown = Math.max(n + 2, pairAt.length * 2);
            pairAt = new int[grown];
            cost = new int[grown];
            choice = new int[grown];
            choiceFrom = new int[grown];
        }
        int last = total - MIN_MATCH;
        int pairs = 0;
        int covered = start; // positions before it lie within a long match: hashed, not searched
        for (int i = start; i < total; i++) {
            pairAt[i - start] = pairs;
            if (i > last) {
                continue;
            }
            int h = ((int) INT.get(buf, i) * PRIME) >>> (32 - HASH_BITS);
            int candidate = head[h];
            previous[i] = candidate;
            head[h] = base + i;
            if (i < covered) {
                continue;
            }
            int best = MIN_MATCH - 1;
            int limit = Math.min(total - i, MAX_MATCH);
            for (int chain = CHAIN; candidate >= base && chain > 0; chain--) {
                int src = candidate - base;
                int max;
                if (src >= start) {
                    if (i - src > MAX_DISTANCE) {
                        break;
                    }
                    max = limit;
                } else {
                    max = Math.min(limit, endOf[src] - src);
                }
                if (max > best && buf[src + best] == buf[i + best]) {
                    int length = matchLength(buf, src, i, max);
                    if (length > best) {
                        best = length;
                        if (pairs == pairLength.length) {
                            pairLength = Arrays.copyOf(pairLength, pairs * 2);
                            pairFrom = Arrays.copyOf(pairFrom, pairs * 2);
                        }
                        pairLength[pairs] = length;
                        pairFrom[pairs] = src;
                        pairs++;
                        if (length == limit || length >= NICE) {
                            break;
                        }
                    }
                }
                candidate = previous[src];
            }
            if (best >= NICE) {
                covered = i + best;
            }
        }
        pairAt[n] = pairs;
        cost[n] = 0;
        for (int k = n - 1; k >= 0; k--) {
            int i = start + k;
            int best = (FixedCodes.LITERAL[buf[i] & 0xFF] >>> 24) + cost[k + 1];
            int take = 0;
            int takeFrom = 0;
            int from = MIN_MATCH;
            for (int p = pairAt[k]; p < pairAt[k + 1]; p++) {
                int src = pairFrom[p];
                int distance = src >= start ? i - src : Math.min(MAX_DISTANCE, DICTIONARY_SPREAD * (i - src));
                int distanceBits = (int) (FixedCodes.distance(distance) >>> 32);
                int longest = pairLength[p];
                // Every length below NICE, then only the whole match.
                int shortest = 0;
                int rest = Integer.MAX_VALUE;
                for (int length = from, end = Math.min(longest, NICE - 1); length <= end; length++) {
                    int c = LENGTH_BITS[length] + cost[k + length];
                    if (c < rest) {
                        rest = c;
                        shortest = length;
                    }
                }
                if (longest >= NICE) {
                    int c = LENGTH_BITS[longest] + cost[k + longest];
                    if (c < rest) {
                        rest = c;
                        shortest = longest;
                    }
                }
                if (rest + distanceBits < best) {
                    best = rest + distanceBits;
                    take = shortest;
                    takeFrom = src;
                }
                from = longest + 1;
            }
            cost[k] = best;
            choice[k] = take;
            choiceFrom[k] = takeFrom;
        }
        int size = 0;
        for (int k = 0; k < n; ) {
            if (choice[k] > 0) {
                size = record(size, start + k, choice[k], choiceFrom[k], start, count);
                k += choice[k];
            } else {
                k++;
            }
        }
        return size;
    }

    /**
     * The matches of {@link #ops}{@code [0, size)} with their pieces: literals and matches within
     * the message encoded into bits once, the dictionary's matches left for each connection, with
     * the bits of their literals for those that cannot use them.
     */
    private Matches encode(Object message, LoopContexts.Recent channel, byte[] array, Object[] dictionary, int size) {
        BitString bits = this.bits;
        bits.reset();
        int count = 0;
        int cursor = 0;
        int segment = 0;
        int farthest = 0;
        for (int k = 0; k < size; k += Matches.INTS) {
            int from = ops[k];
            int kind = ops[k + 1] >>> 16;
            int length = ops[k + 1] & 0xFFFF;
            for (int i = 1 + cursor; i < 1 + from; i++) {
                bits.literal(array[i] & 0xFF);
            }
            cursor = from + length;
            if (kind == Matches.SELF) {
                bits.match(length, ops[k + 2]);
                farthest = Math.max(farthest, ops[k + 2]);
                continue;
            }
            if (count + 2 * Matches.PIECE > pieces.length) {
                pieces = Arrays.copyOf(pieces, pieces.length * 2);
            }
            count = fixed(count, segment, bits.count());
            int literals = bits.count();
            for (int i = 1 + from; i < 1 + cursor; i++) {
                bits.literal(array[i] & 0xFF);
            }
            pieces[count] = from;
            pieces[count + 1] = ops[k + 1];
            pieces[count + 2] = ops[k + 2];
            pieces[count + 3] = literals;
            pieces[count + 4] = bits.count() - literals;
            count += Matches.PIECE;
            segment = bits.count();
        }
        for (int i = 1 + cursor; i < array.length - 1; i++) {
            bits.literal(array[i] & 0xFF);
        }
        if (count + Matches.PIECE > pieces.length) {
            pieces = Arrays.copyOf(pieces, pieces.length * 2);
        }
        count = fixed(count, segment, bits.count());
        return new Matches(message, channel, array, dictionary, Arrays.copyOf(ops, size), Arrays.copyOf(pieces, count), bits.toWords(), farthest);
    }

    /** Adds a piece of the bits {@code [from, to)} that every connection writes as they are, if any; the new count. */
    private int fixed(int count, int from, int to) {
        if (to == from) {
            return count;
        }
        pieces[count] = 0;
        pieces[count + 1] = 0;
        pieces[count + 2] = 0;
        pieces[count + 3] = from;
        pieces[count + 4] = to - from;
        return count + Matches.PIECE;
    }

    /** Adds the match of {@code length} at {@code i} from {@code from} to {@link #ops}, of which {@code size} are used; the new size. */
    private int record(int size, int i, int length, int from, int start, int count) {
        if (size + Matches.INTS > ops.length) {
            ops = Arrays.copyOf(ops, ops.length * 2);
        }
        ops[size] = i - start;
        if (from >= start) {
            ops[size + 1] = length;
            ops[size + 2] = i - from;
        } else {
            int j = entry(from, count);
            ops[size + 1] = length | (j + 1) << 16;
            ops[size + 2] = from - (j == 0 ? 0 : ends[j - 1]);
        }
        return size + Matches.INTS;
    }

    /** The dictionary element {@code position} is in. */
    private int entry(int position, int count) {
        int j = 0;
        while (ends[j] <= position) {
            j++;
        }
        return j;
    }

    /** How many bytes from {@code cur} equal those from {@code ref}, at most {@code max} (8 bytes past both readable). */
    private static int matchLength(byte[] buf, int ref, int cur, int max) {
        int n = 0;
        while (n + 8 <= max) {
            long x = (long) LONG.get(buf, ref + n) ^ (long) LONG.get(buf, cur + n);
            if (x != 0) {
                return n + (Long.numberOfTrailingZeros(x) >>> 3);
            }
            n += 8;
        }
        while (n < max && buf[ref + n] == buf[cur + n]) {
            n++;
        }
        return n;
    }
}
