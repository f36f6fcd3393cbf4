package io.bayeux.transport.internal.websocket;

import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.internal.ServerMessageImpl;
import io.bayeux.transport.WebSocketCompression;
import io.netty.channel.EventLoop;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * What the compression contexts of one event loop's connections share: the matches of the
 * messages they send ({@link Matches}, found once per message against the last ones of its
 * channel, {@link #matches}), the buffers they deflate into, and the list of those that hold
 * state, with the timer that drops each one once its connection has sent nothing compressed for
 * the release time, and each channel's last messages once the channel has sent nothing for as
 * long and no connection that keeps its state remembers sending any of them (a channel quiet
 * for a while whose subscribers are busy with other channels keeps its last messages for their
 * next match into them). The timer is one task on the loop, scheduled only while something is
 * held: an idle loop has none, and a round looks only at what is held, not at every connection.
 *
 * <p>Loop-confined, but for the counters, which are the server's and thread-safe.
 */
final class LoopContexts {
    /** The most channels whose last messages a loop keeps. */
    static final int CHANNELS = 1024;
    private final EventLoop loop;
    final WebSocketCompression.Context settings;
    /** Messages compressed by the server's deflaters, shared and per connection. */
    final LongAdder compressions;
    /** The contexts that hold a deflater, server-wide. */
    private final AtomicInteger held;
    private final LongSupplier nanoTime;
    private final long releaseNanos;
    /** The contexts of this loop that hold a deflater. */
    private final List<ContextDeflater> live = new ArrayList<>();
    /** Whether the release round is scheduled. */
    private boolean scheduled;
    /** Where a frame's payload is written before its frame is made. */
    final BitWriter bits = new BitWriter();
    /** Where a frame of several messages is put together before it is deflated; grows to the largest. */
    private byte[] input = new byte[1024];
    private final MatchFinder finder = new MatchFinder();
    /**
     * Per channel, the matches of the last messages it sent on this loop; at most
     * {@value #CHANNELS} channels, those sent to least recently dropped first, so that a server
     * with many busy channels keeps a bounded amount (each channel's last messages are only
     * worth keeping for the next ones of the same channel).
     */
    private final Map<String, Recent> channels = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Recent> eldest) {
            return size() > CHANNELS;
        }
    };
    /** The most bytes of a channel's last messages a message's matches may refer to. */
    private final int dictionaryBytes;
    /** The dictionary of the message being searched, its messages and their arrays; emptied after. */
    private final Object[] dictionary = new Object[Recent.SIZE];
    private final byte[][] arrays = new byte[Recent.SIZE][];
    /** The broadcasts whose matches were asked for last, in a ring. */
    private final Matches[] latest = new Matches[8];
    private int nextLatest;
    /** Messages searched for matches, for tests. */
    private long searches;

    LoopContexts(EventLoop loop, WebSocketCompression compression, LongAdder compressions, AtomicInteger held, LongSupplier nanoTime) {
        this.loop = loop;
        this.settings = compression.context();
        this.compressions = compressions;
        this.held = held;
        this.nanoTime = nanoTime;
        this.releaseNanos = settings.releaseAfter().toNanos();
        this.dictionaryBytes = 1 << settings.dictionaryBits();
    }

    /**
     * The matches of {@code message}, encoded as {@code array}: for a broadcast (a frozen
     * message), found the first time a connection of this loop sends it, against the last
     * messages of its channel, and kept with them for the other connections; for any other
     * message, found within itself alone.
     */
    Matches matches(ServerMessage message, byte[] array) {
        // A broadcast goes to its subscribers of the loop one after the other: its matches are
        // most often among the last few asked for.
        for (Matches each : latest) {
            if (each != null && each.message == message) {
                return each;
            }
        }
        Matches found = search(message, array);
        if (found.channel != null) {
            latest[nextLatest] = found;
            nextLatest = (nextLatest + 1) & (latest.length - 1);
        }
        return found;
    }

    private Matches search(ServerMessage message, byte[] array) {
        String channel = message.getChannel();
        if (!(message instanceof ServerMessageImpl impl && impl.isFrozen()) || channel == null) {
            searches++;
            return finder.find(message, null, array, dictionary, arrays, 0);
        }
        Recent recent = channels.get(channel);
        if (recent == null) {
            recent = new Recent();
            channels.put(channel, recent);
            schedule();
        }
        recent.lastUsed = now();
        Matches found = recent.find(message);
        if (found == null) {
            searches++;
            int count = recent.dictionary(dictionaryBytes, dictionary, arrays);
            found = finder.find(message, recent, array, dictionary, arrays, count);
            Arrays.fill(dictionary, 0, count, null);
            Arrays.fill(arrays, 0, count, null);
            recent.add(found);
        }
        return found;
    }

    /** How many messages were searched for matches. */
    long searches() {
        return searches;
    }

    /** The channels with last messages kept on this loop. */
    int channels() {
        return channels.size();
    }

    /**
     * A channel's last messages on this loop, newest last, in a ring, and how many connections of
     * the loop remember sending some of them: while one does, its next message of the channel
     * may match into them, however long the channel has been quiet.
     */
    static final class Recent {
        static final int SIZE = 16;
        private final Matches[] ring = new Matches[SIZE];
        /** Where the next goes. */
        private int next;
        private int count;
        long lastUsed;
        /** The connections ({@link ContextDeflater}) that keep a slot for this channel. */
        private int holders;

        /** A connection keeps a slot for this channel. */
        void hold() {
            holders++;
        }

        /** A connection gave up its slot for this channel. */
        void unhold() {
            holders--;
        }

        Matches find(Object message) {
            for (int k = 1; k <= count; k++) {
                Matches each = ring[(next - k) & (SIZE - 1)];
                if (each.message == message) {
                    return each;
                }
            }
            return null;
        }

        /**
         * Puts the newest messages (at most {@link ContextDeflater#PER_CHANNEL}) whose elements come
         * to at most {@code bytes} in all into the two arrays, oldest first; how many.
         */
        int dictionary(int bytes, Object[] messages, byte[][] arrays) {
            int n = 0;
            int total = 0;
            // No connection remembers more of a channel's messages than that (ContextDeflater).
            while (n < Math.min(count, ContextDeflater.PER_CHANNEL)) {
                Matches each = ring[(next - n - 1) & (SIZE - 1)];
                if (total + each.elementLength() > bytes) {
                    break;
                }
                total += each.elementLength();
                n++;
            }
            for (int k = 0; k < n; k++) {
                Matches each = ring[(next - n + k) & (SIZE - 1)];
                messages[k] = each.message;
                arrays[k] = each.array;
            }
            return n;
        }

        void add(Matches matches) {
            ring[next] = matches;
            next = (next + 1) & (SIZE - 1);
            count = Math.min(count + 1, SIZE);
        }
    }

    /** The loop's buffer for a frame's input of {@code length} bytes. */
    byte[] input(int length) {
        if (input.length < length) {
            input = new byte[Math.max(length, input.length * 2)];
        }
        return input;
    }

    long now() {
        return nanoTime.getAsLong();
    }

    /** {@code context} made its deflater: it is dropped once idle for the release time. */
    void holding(ContextDeflater context) {
        live.add(context);
        held.incrementAndGet();
        schedule();
    }

    /** Schedules the release round if it is not. */
    private void schedule() {
        if (!scheduled) {
            scheduled = true;
            scheduleRound();
        }
    }

    private void scheduleRound() {
        // Half the release time: a deflater is dropped between one and one and a half release times after its last message.
        loop.schedule(this::releaseIdle, Math.max(TimeUnit.MILLISECONDS.toNanos(5), releaseNanos / 2), TimeUnit.NANOSECONDS);
    }

    /**
     * On the loop: drops the contexts' state idle for the release time, then the channels' last
     * messages idle for as long that no context still remembers; runs again while any is kept.
     */
    void releaseIdle() {
        long now = now();
        for (int i = live.size() - 1; i >= 0; i--) {
            ContextDeflater context = live.get(i);
            if (context.releaseIfIdle(now, releaseNanos)) {
                // Order does not matter: the last one takes the place of the one dropped.
                ContextDeflater last = live.remove(live.size() - 1);
                if (i < live.size()) {
                    live.set(i, last);
                }
                held.decrementAndGet();
            }
        }
        for (Iterator<Recent> each = channels.values().iterator(); each.hasNext(); ) {
            Recent recent = each.next();
            if (recent.holders <= 0 && now - recent.lastUsed >= releaseNanos) {
                each.remove();
            }
        }
        if (channels.isEmpty()) {
            Arrays.fill(latest, null);
        }
        if (live.isEmpty() && channels.isEmpty()) {
            scheduled = false;
        } else {
            scheduleRound();
        }
    }

    /** The contexts of this loop holding a deflater. */
    int size() {
        return live.size();
    }

    @Override
    public String toString() {
        return "LoopContexts[" + live.size() + " held, " + settings + "]";
    }
}
