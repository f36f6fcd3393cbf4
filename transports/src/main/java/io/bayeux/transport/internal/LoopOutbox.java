package io.bayeux.transport.internal;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.EventExecutor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Writes that other threads hand to one event loop, done in rounds: the first write after a
 * round submits one task, which does every write waiting (unflushed) and then flushes each
 * channel it wrote to once. When a publish answers a hundred held long-polls from the
 * executor, their loop wakes up once rather than a hundred times, and a channel that got two
 * answers in a row is flushed once; the channels written are flushed {@value #FLUSH_EVERY} at a
 * time. A write asked for on the loop itself is done at once.
 *
 * <p>It also counts, for its loop, the WebSocket frames written and the flushes done (its own
 * and those of the WebSocket connections' push rounds): loop-confined counters that other
 * threads read on request ({@link Registry#framesWritten()}, {@link Registry#flushes()}), so
 * that counting costs the loop no shared write.
 */
public final class LoopOutbox implements Runnable {
    private static final VarHandle FRAMES;
    private static final VarHandle FLUSHES;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            FRAMES = lookup.findVarHandle(LoopOutbox.class, "framesWritten", long.class);
            FLUSHES = lookup.findVarHandle(LoopOutbox.class, "flushes", long.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    /** Writes done in one task before the loop gets to its other work. */
    private static final int ROUND_LIMIT = 4096;

    /**
     * A round that writes to more channels than this flushes them this many at a time, so that
     * the first get their bytes while the loop writes to the others, and the writes waiting for
     * their flush (each holding an outbound entry and a buffer that Netty pools per thread
     * afterwards) stay few.
     */
    static final int FLUSH_EVERY = 64;

    private final EventLoop loop;
    private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    /**
     * The channels written to in the current round, each once unless written to again after
     * another (a second flush finds nothing to do); loop-confined. A list: an identity set's
     * clear() wipes its whole table every round, grown to thousands of slots by one burst.
     */
    private final ArrayList<Channel> written = new ArrayList<>();
    private final SharedFrames frames;
    /** WebSocket frames written on this loop; written by the loop only (opaque), read from any thread. */
    private long framesWritten;
    /** Flushes done on this loop (see {@link #flushed()}); written by the loop only (opaque), read from any thread. */
    private long flushes;

    private LoopOutbox(EventLoop loop, SharedFrames frames) {
        this.loop = loop;
        this.frames = frames;
    }

    private record Pending(Channel channel, Runnable write) {
    }

    /** The outboxes of one server's event loops, and their {@link GroupedTimers}. */
    public static final class Registry {
        private final Map<EventLoop, LoopOutbox> outboxes = new ConcurrentHashMap<>();
        private final Map<EventExecutor, GroupedTimers> timers = new ConcurrentHashMap<>();
        /** Unpooled, so that a shared frame's memory is freed as soon as its last write is done, and counted. */
        private final UnpooledByteBufAllocator sharedAlloc = new UnpooledByteBufAllocator(true);

        /** The outbox of {@code channel}'s event loop. */
        public LoopOutbox of(Channel channel) {
            return outboxes.computeIfAbsent(channel.eventLoop(), loop -> new LoopOutbox(loop, new SharedFrames(loop, sharedAlloc)));
        }

        /** The grouped timers of {@code loop}. */
        public GroupedTimers timersOf(EventExecutor loop) {
            return timers.computeIfAbsent(loop, GroupedTimers::new);
        }

        /** The timers handed to these loops so far by their grouped timers. */
        public long groupedTimersHandedToLoops() {
            long sum = 0;
            for (GroupedTimers each : timers.values()) {
                sum += each.timersHandedToLoop();
            }
            return sum;
        }

        /** The WebSocket frames written by these loops so far, summed now; any thread. */
        public long framesWritten() {
            long sum = 0;
            for (LoopOutbox outbox : outboxes.values()) {
                sum += (long) FRAMES.getOpaque(outbox);
            }
            return sum;
        }

        /** The flushes done by these loops so far (see {@link LoopOutbox#flushed()}), summed now; any thread. */
        public long flushes() {
            long sum = 0;
            for (LoopOutbox outbox : outboxes.values()) {
                sum += (long) FLUSHES.getOpaque(outbox);
            }
            return sum;
        }

        /** The direct bytes held by the shared frames of these loops now: this turn's, and those not written yet. */
        public long sharedFrameBytes() {
            return sharedAlloc.metric().usedDirectMemory();
        }
    }

    /** On the loop: a WebSocket frame was written. */
    public void frameWritten() {
        FRAMES.setOpaque(this, framesWritten + 1);
    }

    /**
     * On the loop: a connection is about to be flushed; one per WebSocket connection per push
     * round that wrote to it, and one per connection per round of this outbox (replies,
     * long-polling responses).
     */
    public void flushed() {
        FLUSHES.setOpaque(this, flushes + 1);
    }

    /** The loop's shared broadcast frames of the current turn. */
    public SharedFrames frames() {
        return frames;
    }

    /**
     * Runs {@code write} (which writes to {@code channel} without flushing) on the loop, in the
     * next round, then flushes the channel; at once when called on the loop. Any thread.
     */
    public void write(Channel channel, Runnable write) {
        if (loop.inEventLoop()) {
            write.run();
            flushed();
            channel.flush();
            return;
        }
        pending.add(new Pending(channel, write));
        if (scheduled.compareAndSet(false, true)) {
            try {
                loop.execute(this);
            } catch (RejectedExecutionException x) {
                // The loop is shutting down, and its channels with it.
                scheduled.set(false);
                pending.clear();
            }
        }
    }

    @Override
    public void run() {
        int done = 0;
        while (true) {
            Pending next;
            while (done < ROUND_LIMIT && (next = pending.poll()) != null) {
                done++;
                next.write().run();
                Channel channel = next.channel();
                if (written.isEmpty() || written.get(written.size() - 1) != channel) {
                    written.add(channel);
                    if (written.size() == FLUSH_EVERY) {
                        flushWritten();
                    }
                }
            }
            flushWritten();
            scheduled.set(false);
            if (pending.isEmpty() || !scheduled.compareAndSet(false, true)) {
                return;
            }
            if (done >= ROUND_LIMIT) {
                loop.execute(this);
                return;
            }
        }
    }

    private void flushWritten() {
        for (int i = 0, n = written.size(); i < n; i++) {
            flushed();
            written.get(i).flush();
        }
        written.clear();
    }
}
