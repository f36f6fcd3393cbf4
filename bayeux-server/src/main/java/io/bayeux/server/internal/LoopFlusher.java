package io.bayeux.server.internal;

import io.bayeux.api.Promise;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.Scheduler;
import io.bayeux.server.spi.Endpoint;
import io.bayeux.server.spi.ServerObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Pushes the queues of the sessions whose endpoints belong to one event loop, from that loop,
 * in rounds. A session with something due is marked dirty and listed once; the listing that
 * finds the list empty submits one task to the loop, so a burst of publishes costs the loop one
 * wake-up, not one per subscriber. A round takes the whole list, writes every listed session's
 * queue as one frame (unless its endpoint is not writable: it waits for
 * {@link ConnectionImpl#writable()}), and flushes each endpoint it wrote to once, after every
 * {@value #FLUSH_EVERY} endpoints and at its end.
 *
 * <p>The list is linked through the sessions themselves (their outboxes, {@link SessionOutbox#nextDirty}, a
 * lock-free stack pushed by any thread and taken whole by the loop), so listing allocates
 * nothing. Only the loop runs a round, so the round's bookkeeping needs no lock.
 *
 * <p>A thread that handles a batch of several messages from a client {@linkplain #hold() holds}
 * its listings until the batch is handled: what the batch delivers is queued at once, but the
 * loops hear of it at the end, so a subscriber gets one frame per loop round for the whole
 * batch instead of a round started by the first message racing the publishes of the others.
 * Only this thread's listings wait: a session another thread lists goes into the next round as
 * usual, with whatever this batch queued for it. And they wait {@value #MAX_HOLD_MILLIS} ms at
 * most, however long the batch takes.
 */
final class LoopFlusher implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(LoopFlusher.class);

    /** The longest a thread's listing is held: past it, what the thread holds goes out while it goes on. */
    static final long MAX_HOLD_MILLIS = 20;
    /**
     * A round that writes to more connections than this flushes them this many at a time: the
     * first subscribers of a large broadcast get their frame while the loop writes the others'
     * and the frames that wait for their flush stay few.
     */
    static final int FLUSH_EVERY = 64;
    /** Per thread: the listings it holds back until the batch it handles ends. */
    private static final ThreadLocal<Held> HELD = ThreadLocal.withInitial(Held::new);

    private final Executor loop;
    /** The sessions listed since the last round, the latest first; null when none is. */
    private final AtomicReference<SessionOutbox> listed = new AtomicReference<>();
    /** The connections written to in the current round; loop-confined. */
    private final List<ConnectionImpl> written = new ArrayList<>();
    /** What the current round pushed, for the server's observer; loop-confined. */
    private final DeliveryTally tally = new DeliveryTally();

    LoopFlusher(Executor loop) {
        this.loop = loop;
    }

    /**
     * Lists {@code outbox} for the next round, unless it is listed already; while this thread
     * {@linkplain #hold() holds} its listings, at the end of the hold. Any thread.
     */
    void schedule(SessionOutbox outbox) {
        Held held = HELD.get();
        if (held.depth > 0) {
            held.add(this, outbox);
        } else if (list(outbox)) {
            submit();
        }
    }

    /** @return whether the list was empty: the caller submits the round */
    private boolean list(SessionOutbox outbox) {
        if (!outbox.markDirty()) {
            return false;
        }
        SessionOutbox head;
        do {
            head = listed.get();
            outbox.nextDirty = head;
        } while (!listed.compareAndSet(head, outbox));
        return head == null;
    }

    /**
     * From now on this thread's listings wait until the matching {@link #release()}: the
     * thread is about to handle several messages of one batch. Holds nest.
     */
    static void hold() {
        HELD.get().depth++;
    }

    /**
     * Ends a {@link #hold()}; the outermost lists what was held, each session once, then starts
     * the round of each loop whose list it began: the loop wakes once, with all of it.
     */
    static void release() {
        Held held = HELD.get();
        if (--held.depth == 0) {
            held.end();
        }
    }

    private void submit() {
        try {
            loop.execute(this);
        } catch (RejectedExecutionException x) {
            // The loop is shutting down: its connections are closing, their sessions will resume elsewhere.
            LOG.debug("Event loop {} refused a push round", loop, x);
            SessionOutbox outbox = listed.getAndSet(null);
            while (outbox != null) {
                SessionOutbox next = outbox.nextDirty;
                outbox.nextDirty = null;
                outbox.clearDirty();
                outbox = next;
            }
        }
    }

    @Override
    public void run() {
        // Taken whole: a session listed from now on starts a new list, and its listing a new task.
        SessionOutbox outbox = reverse(listed.getAndSet(null));
        while (outbox != null) {
            SessionOutbox next = outbox.nextDirty;
            outbox.nextDirty = null;
            outbox.clearDirty();
            ConnectionImpl connection;
            try {
                connection = outbox.pushOnLoop(tally);
            } catch (RuntimeException x) {
                LOG.warn("Push to {} failed", outbox.session(), x);
                connection = null;
            }
            if (connection != null && connection.markWritten()) {
                written.add(connection);
                if (written.size() == FLUSH_EVERY) {
                    flushWritten();
                }
            }
            outbox = next;
        }
        flushWritten();
    }

    /**
     * Writes {@code batches} to {@code endpoint} and flushes it, on this loop, without waiting
     * for a round: the last messages of a session about to be removed, whose removal empties
     * its queue before the round would come.
     */
    void writeNow(Endpoint endpoint, List<List<ServerMessage>> batches, ServerSessionImpl session) {
        try {
            loop.execute(() -> {
                ServerObserver observer = session.server().observer();
                for (List<ServerMessage> batch : batches) {
                    endpoint.write(batch, Promise.noop());
                    if (observer != null) {
                        DeliveryTally.report(observer, session.getTransportName(), batch);
                    }
                }
                endpoint.flush();
            });
        } catch (RuntimeException x) {
            LOG.debug("Cannot push the last messages of {} to {}", session, endpoint, x);
        }
    }

    /** The stack in listing order, earliest first, so that no session waits behind later ones. */
    private static SessionOutbox reverse(SessionOutbox head) {
        SessionOutbox previous = null;
        while (head != null) {
            SessionOutbox next = head.nextDirty;
            head.nextDirty = previous;
            previous = head;
            head = next;
        }
        return previous;
    }

    private void flushWritten() {
        tally.flushing();
        for (int i = 0; i < written.size(); i++) {
            ConnectionImpl connection = written.get(i);
            connection.clearWritten();
            try {
                connection.endpoint().flush();
            } catch (RuntimeException x) {
                LOG.debug("Flush of {} failed", connection, x);
            }
        }
        written.clear();
    }

    /**
     * One thread's held listings, in the order they came. The thread adds and releases them;
     * a watchdog on the server's scheduler releases them too, {@value #MAX_HOLD_MILLIS} ms after
     * the first, so that a batch whose handling blocks (application code waiting for a client,
     * say) holds nobody's messages for longer than that.
     */
    private static final class Held {
        /** Beyond this many, the lists are let go after a release instead of kept for the next batch. */
        private static final int KEEP = 4096;
        /** The owner's nesting; only the owner touches it. */
        int depth;
        /** Guarded by this. */
        private ArrayList<LoopFlusher> flushers = new ArrayList<>();
        private ArrayList<SessionOutbox> outboxes = new ArrayList<>();
        /** The watchdog of what is held now; only the owner touches it. */
        private Scheduler.Cancellable watchdog;

        void add(LoopFlusher flusher, SessionOutbox outbox) {
            boolean first;
            synchronized (this) {
                first = outboxes.isEmpty();
                flushers.add(flusher);
                outboxes.add(outbox);
            }
            if (first) {
                try {
                    watchdog = outbox.session().server().scheduler().schedule(this::release, MAX_HOLD_MILLIS);
                } catch (RuntimeException x) {
                    // The scheduler is stopping, as the server is: the hold's end releases them.
                    LOG.debug("No watchdog for held listings", x);
                }
            }
        }

        /** The owner's outermost release. */
        void end() {
            Scheduler.Cancellable pending = watchdog;
            if (pending != null) {
                watchdog = null;
                pending.cancel();
            }
            release();
        }

        /** Lists what is held, each session once, then starts the rounds of the loops whose lists it began. */
        void release() {
            LoopFlusher first = null;
            List<LoopFlusher> more = null;
            synchronized (this) {
                try {
                    for (int i = 0, n = outboxes.size(); i < n; i++) {
                        LoopFlusher flusher = flushers.get(i);
                        // A session held twice is listed already the second time: its round waits for the submit below.
                        if (flusher.list(outboxes.get(i))) {
                            if (first == null) {
                                first = flusher;
                            } else {
                                if (more == null) {
                                    more = new ArrayList<>(2);
                                }
                                more.add(flusher);
                            }
                        }
                    }
                } finally {
                    if (outboxes.size() > KEEP) {
                        flushers = new ArrayList<>();
                        outboxes = new ArrayList<>();
                    } else {
                        flushers.clear();
                        outboxes.clear();
                    }
                }
            }
            if (first != null) {
                first.submit();
            }
            if (more != null) {
                more.forEach(LoopFlusher::submit);
            }
        }
    }

    @Override
    public String toString() {
        return "LoopFlusher[" + loop + (listed.get() == null ? "" : ", listed") + "]";
    }
}
