package io.bayeux.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Pushes the queues of the sessions whose endpoints belong to one event loop, from that loop,
 * in rounds. A session with something due is marked dirty and listed once; the first mark
 * after a round submits one task to the loop, so a burst of publishes costs the loop one
 * wake-up, not one per subscriber. A round writes every dirty session's queue as one frame
 * (unless its endpoint is not writable: it waits for {@link ConnectionImpl#writable()}), then
 * flushes each endpoint it wrote to once.
 *
 * <p>Only ever run on its loop, so the round's bookkeeping needs no lock.
 */
final class LoopFlusher implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(LoopFlusher.class);
    /** Sessions pushed in one task before the loop gets to do its other work. */
    private static final int ROUND_LIMIT = 4096;

    private final Executor loop;
    private final ConcurrentLinkedQueue<ServerSessionImpl> dirty = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    /** The connections written to in the current round; loop-confined. */
    private final List<ConnectionImpl> written = new ArrayList<>();

    LoopFlusher(Executor loop) {
        this.loop = loop;
    }

    /** Lists {@code session} for the next round, unless it is listed already. Any thread. */
    void schedule(ServerSessionImpl session) {
        if (session.markDirty()) {
            dirty.add(session);
            if (scheduled.compareAndSet(false, true)) {
                submit();
            }
        }
    }

    private void submit() {
        try {
            loop.execute(this);
        } catch (RejectedExecutionException x) {
            // The loop is shutting down: its connections are closing, their sessions will resume elsewhere.
            LOG.debug("Event loop {} refused a push round", loop, x);
            scheduled.set(false);
        }
    }

    @Override
    public void run() {
        int pushed = 0;
        while (true) {
            ServerSessionImpl session;
            while (pushed < ROUND_LIMIT && (session = dirty.poll()) != null) {
                pushed++;
                session.clearDirty();
                ConnectionImpl connection;
                try {
                    connection = session.pushOnLoop();
                } catch (RuntimeException x) {
                    LOG.warn("Push to {} failed", session, x);
                    continue;
                }
                if (connection != null && connection.markWritten()) {
                    written.add(connection);
                }
            }
            flushWritten();
            scheduled.set(false);
            if (dirty.isEmpty() || !scheduled.compareAndSet(false, true)) {
                return;
            }
            if (pushed >= ROUND_LIMIT) {
                // Let the loop read and run its other tasks; the rest goes in the next task.
                submit();
                return;
            }
        }
    }

    private void flushWritten() {
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

    @Override
    public String toString() {
        return "LoopFlusher[" + loop + ", dirty=" + dirty.size() + "]";
    }
}
