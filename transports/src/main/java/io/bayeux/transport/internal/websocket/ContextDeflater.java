package io.bayeux.transport.internal.websocket;

import io.bayeux.api.server.ServerMessage;
import io.bayeux.transport.internal.SharedFrames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.Arrays;
import java.util.List;

/**
 * The compression context of one connection that negotiated {@code permessage-deflate} with
 * context takeover. Its messages are not searched for matches here: each message's matches were
 * found once, for every connection of the loop, against the last messages of its channel, and
 * what is the same for every connection encoded once ({@link LoopContexts#matches}); this
 * context only keeps where in its own stream it sent its channels' last messages, so that it can
 * tell how far back such a message is for its client's inflater, copies the bits encoded once and
 * writes the matches into earlier messages with deflate's fixed Huffman codes: a match whose
 * message it did not send, or sent more than its window ago, is written as the literal bytes it
 * stands for. Each message ends with a sync flush whose empty block's four bytes
 * ({@code 00 00 ff ff}) are left out (RFC 7692, 7.2.1).
 *
 * <p>What it keeps (for each of {@value #CHANNELS} channels at most, the last
 * {@value #PER_CHANNEL} broadcasts of it sent and where) is made when a frame
 * needs it and dropped by the loop's {@link LoopContexts} once the connection has sent nothing
 * compressed for the release time: after that its frames refer to nothing sent before, which the
 * client's inflater, however much history it keeps, inflates the same. An idle connection holds
 * this object and nothing else.
 *
 * <p>Loop-confined.
 */
final class ContextDeflater {
    /** How many channels a connection remembers its last broadcasts of. */
    static final int CHANNELS = 16;
    /** How many of a channel's last broadcasts a connection remembers sending. */
    static final int PER_CHANNEL = 16;
    private static final int NOT_SENT = -1;

    private final LoopContexts loop;
    /** The client's window: no match reaches further back. */
    private final int window;
    /** The channels (their {@link Matches#channel}) whose last broadcasts are remembered, a slot each; null once released. */
    private LoopContexts.Recent[] channels;
    /** Per slot, a ring of the last broadcasts of its channel sent: {@code PER_CHANNEL} from {@code slot * PER_CHANNEL}. */
    private Object[] sent;
    /** Where in the stream each of {@link #sent} starts. */
    private int[] at;
    /** Per slot, where the next goes in its ring. */
    private int[] next;
    /** Per slot, where its last broadcast started: the slot sent to least recently is the one reused. */
    private int[] last;
    /** Bytes given to the client's inflater since this context was made, modulo 2^32. */
    private int position;
    /** Whether the loop's release round has this context in its list. */
    private boolean listed;
    /** When the last message was compressed, for the release. */
    private long lastUsed;
    /** Per dictionary message of the message being written: where this connection sent it, or {@link #NOT_SENT}; null once released. */
    private int[] found;

    /** A context of a connection whose client inflates with a window of {@code 2^windowBits} bytes. */
    ContextDeflater(LoopContexts loop, int windowBits) {
        this.loop = loop;
        this.window = 1 << windowBits;
    }

    /**
     * A whole text frame with RSV1 set carrying {@code messages}, encoded as {@code arrays} (each a
     * JSON array of one), as one JSON array, deflated with this connection's context, in a new
     * direct buffer.
     */
    ByteBuf frame(ByteBufAllocator alloc, List<ServerMessage> messages, byte[][] arrays) {
        int payload = compress(messages, arrays);
        loop.compressions.increment();
        return SharedFrames.deflatedTextFrameHeader(alloc, payload).writeBytes(loop.bits.output(), 0, payload);
    }

    /** Deflates the frame's payload into the loop's {@link BitWriter}; its length. */
    int compress(List<? extends ServerMessage> messages, byte[][] arrays) {
        if (sent == null) {
            channels = new LoopContexts.Recent[CHANNELS];
            sent = new Object[CHANNELS * PER_CHANNEL];
            at = new int[CHANNELS * PER_CHANNEL];
            next = new int[CHANNELS];
            last = new int[CHANNELS];
            found = new int[PER_CHANNEL];
            if (!listed) {
                listed = true;
                loop.holding(this);
            }
        }
        lastUsed = loop.now();
        int plain = 1 + arrays.length;
        for (byte[] array : arrays) {
            plain += array.length - 2;
        }
        BitWriter out = loop.bits;
        out.start(plain + (plain >>> 3) + 64);
        int pos = position;
        out.literal('[');
        pos++;
        for (int i = 0; i < arrays.length; i++) {
            if (i > 0) {
                out.literal(',');
                pos++;
            }
            Matches matches = loop.matches(messages.get(i), arrays[i]);
            write(out, matches, arrays[i], pos);
            if (matches.channel != null) {
                remember(matches, pos);
            }
            pos += arrays[i].length - 2;
        }
        out.literal(']');
        pos++;
        out.literal(256); // the end of the block
        if (out.bits() > 8L * (plain + 5 * (plain / 65535 + 1)) + 3) {
            out.stored(loop.input(plain), arrays, plain);
        }
        position = pos;
        return out.finish();
    }

    /** Writes the element of {@code array} with {@code matches}, the element starting at stream position {@code pos}. */
    private void write(BitWriter out, Matches matches, byte[] array, int pos) {
        resolve(matches, pos);
        if (matches.farthest <= window) {
            int[] pieces = matches.pieces;
            long[] bits = matches.bits;
            for (int k = 0; k < pieces.length; k += Matches.PIECE) {
                int kind = pieces[k + 1] >>> 16;
                int distance = kind == Matches.SELF ? 0 : distance(kind, pieces[k + 2], pos + pieces[k]);
                if (distance > 0) {
                    out.match(pieces[k + 1] & 0xFFFF, distance);
                } else {
                    out.bits(bits, pieces[k + 3], pieces[k + 4]);
                }
            }
            return;
        }
        // Some match within the message reaches further back than this connection's window.
        int[] ops = matches.ops;
        int cursor = 0;
        for (int k = 0; k < ops.length; k += Matches.INTS) {
            int from = ops[k];
            int length = ops[k + 1] & 0xFFFF;
            out.literals(array, 1 + cursor, 1 + from);
            cursor = from + length;
            int distance = distance(ops[k + 1] >>> 16, ops[k + 2], pos + from);
            if (distance > 0) {
                out.match(length, distance);
            } else {
                out.literals(array, 1 + from, 1 + cursor);
            }
        }
        out.literals(array, 1 + cursor, array.length - 1);
    }

    /**
     * The distance back from stream position {@code at} of a match of {@code kind} from
     * {@code offset} (a distance itself when from the message itself), or 0 if this connection
     * cannot use it (a message it was not sent, or beyond its window).
     */
    private int distance(int kind, int offset, int at) {
        int distance;
        if (kind == Matches.SELF) {
            distance = offset;
        } else {
            int base = found[kind - 1];
            if (base == NOT_SENT) {
                return 0;
            }
            distance = at - (base + offset);
        }
        return distance > 0 && distance <= window ? distance : 0;
    }

    /**
     * Puts in {@link #found} where this connection sent each message of the dictionary of
     * {@code matches} (its channel's last, oldest first), within its window of {@code pos}. A
     * channel's messages go to every subscriber in the same order, so each is looked for further
     * back than the newer one found before it: when all were sent, one pass over the channel's
     * ring finds them all.
     */
    private void resolve(Matches matches, int pos) {
        Object[] dictionary = matches.dictionary;
        int slot = dictionary.length == 0 ? -1 : slot(matches.channel);
        int from = 1;
        for (int j = dictionary.length - 1; j >= 0; j--) {
            found[j] = NOT_SENT;
            if (slot < 0) {
                continue;
            }
            int head = next[slot];
            for (int k = from; k <= PER_CHANNEL; k++) {
                int index = slot * PER_CHANNEL + ((head - k) & (PER_CHANNEL - 1));
                Object each = sent[index];
                if (each == null || pos - at[index] > window) {
                    break;
                }
                if (each == dictionary[j]) {
                    found[j] = at[index];
                    from = k + 1;
                    break;
                }
            }
        }
    }

    /** The slot of {@code channel}, or -1. */
    private int slot(LoopContexts.Recent channel) {
        for (int slot = 0; slot < CHANNELS; slot++) {
            if (channels[slot] == channel) {
                return slot;
            }
        }
        return -1;
    }

    /** Remembers that the broadcast of {@code matches} starts at {@code pos} in the stream. */
    private void remember(Matches matches, int pos) {
        int slot = slot(matches.channel);
        if (slot < 0) {
            // The slot sent to least recently (or never) is given to the channel.
            slot = 0;
            for (int each = 1; each < CHANNELS && channels[slot] != null; each++) {
                if (channels[each] == null || pos - last[each] > pos - last[slot]) {
                    slot = each;
                }
            }
            if (channels[slot] != null) {
                channels[slot].unhold();
            }
            channels[slot] = matches.channel;
            matches.channel.hold();
            Arrays.fill(sent, slot * PER_CHANNEL, (slot + 1) * PER_CHANNEL, null);
            next[slot] = 0;
        }
        int index = slot * PER_CHANNEL + next[slot];
        sent[index] = matches.message;
        at[index] = pos;
        next[slot] = (next[slot] + 1) & (PER_CHANNEL - 1);
        last[slot] = pos;
    }

    /** On the loop, from its release round at {@code now}: forgets what was sent if unused for {@code idleNanos}; whether it did. */
    boolean releaseIfIdle(long now, long idleNanos) {
        if (sent != null && now - lastUsed < idleNanos) {
            return false;
        }
        if (channels != null) {
            for (LoopContexts.Recent channel : channels) {
                if (channel != null) {
                    channel.unhold();
                }
            }
        }
        channels = null;
        sent = null;
        at = null;
        next = null;
        last = null;
        found = null;
        listed = false;
        return true;
    }

    /** Whether it keeps what it sent. */
    boolean holding() {
        return sent != null;
    }

    @Override
    public String toString() {
        return "ContextDeflater[" + (holding() ? "holding" : "released") + "]";
    }
}
