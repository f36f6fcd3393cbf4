package io.bayeux.transport.internal.websocket;

/**
 * One message's LZ77 matches, found once and written by every connection it goes to
 * ({@link ContextDeflater}): each match copies bytes either from earlier in the message itself
 * (a distance that is the same in every connection's stream) or from a message of
 * {@link #dictionary} (its own channel's last ones), at a distance that each connection works
 * out from where that message was in its own stream; a connection that did not send that
 * message, or sent it too far back, writes those bytes as literals instead.
 *
 * <p>Immutable; confined to the event loop that found it.
 */
final class Matches {
    /** A match copies from earlier in the message itself: its third int is the distance. */
    static final int SELF = 0;

    /** The message (compared by identity) and its JSON array of one, whose element is {@code array[1, length - 1)}. */
    final Object message;
    /** The last messages of its channel it was searched against and joined (compared by identity), or null if it is not a broadcast. */
    final LoopContexts.Recent channel;
    final byte[] array;
    /** The messages whose elements the matches refer to, by index (kind {@code j + 1}). */
    final Object[] dictionary;
    /** The ints of {@link #ops} per match. */
    static final int INTS = 3;

    /**
     * {@value #INTS} ints per match, in the order of the element: where it starts in the
     * element; its length (4 to 258) with, from bit 16, its kind ({@link #SELF} or {@code j + 1}
     * for {@code dictionary[j]}); the distance (self) or where it starts in that message's
     * element.
     */
    final int[] ops;
    /** The ints of {@link #pieces} per piece. */
    static final int PIECE = 5;
    /**
     * The element written once, as far as it is the same for every connection: {@value #PIECE}
     * ints per piece, either bits of {@link #bits} that every connection writes as they are (the
     * literals and the matches within the message: its second int 0) or a match into the
     * dictionary, which each connection writes with its own distance (its start in the element,
     * its length and kind, its offset, as in {@link #ops}), or when it cannot, as the bits of its
     * literals. The last two ints of each: where its bits start in {@link #bits}, and how many.
     */
    final int[] pieces;
    final long[] bits;
    /** The farthest a match within the message reaches back: a connection whose window is smaller writes from {@link #ops}. */
    final int farthest;

    Matches(Object message, LoopContexts.Recent channel, byte[] array, Object[] dictionary, int[] ops, int[] pieces, long[] bits, int farthest) {
        this.message = message;
        this.channel = channel;
        this.array = array;
        this.dictionary = dictionary;
        this.ops = ops;
        this.pieces = pieces;
        this.bits = bits;
        this.farthest = farthest;
    }

    /** The length of the message's element: the bytes it adds to a stream. */
    int elementLength() {
        return array.length - 2;
    }
}
