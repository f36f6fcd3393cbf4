package io.bayeux.server;

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
 * {@link ConnectionImpl#writable()}), then flushes each endpoint it wrote to once.
 *
 * <p>The list is linked through the sessions themselves ({@link ServerSessionImpl#nextDirty}, a
 * lock-free stack pushed by any thread and taken whole by the loop), so listing allocates
 * nothing. Only the loop runs a round, so the round's bookkeeping needs no lock.
 */
final class LoopFlusher implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(LoopFlusher.class);

    private final Executor loop;
    /** The sessions listed since the last round, the latest first; null when none is. */
    private final AtomicReference<ServerSessionImpl> listed = new AtomicReference<>();
    /** The connections written to in the current round; loop-confined. */
    private final List<ConnectionImpl> written = new ArrayList<>();

    LoopFlusher(Executor loop) {
        this.loop = loop;
    }

    /** Lists {@code session} for the next round, unless it is listed already. Any thread. */
    void schedule(ServerSessionImpl session) {
        if (session.markDirty()) {
            ServerSessionImpl head;
            do {
                head = listed.get();
                session.nextDirty = head;
            } while (!listed.compareAndSet(head, session));
            if (head == null) {
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
            ServerSessionImpl session = listed.getAndSet(null);
            while (session != null) {
                ServerSessionImpl next = session.nextDirty;
                session.nextDirty = null;
                session.clearDirty();
                session = next;
            }
        }
    }

    @Override
    public void run() {
        // Taken whole: a session listed from now on starts a new list, and its listing a new task.
        ServerSessionImpl session = reverse(listed.getAndSet(null));
        while (session != null) {
            ServerSessionImpl next = session.nextDirty;
            session.nextDirty = null;
            session.clearDirty();
            ConnectionImpl connection;
            try {
                connection = session.pushOnLoop();
            } catch (RuntimeException x) {
                LOG.warn("Push to {} failed", session, x);
                connection = null;
            }
            if (connection != null && connection.markWritten()) {
                written.add(connection);
            }
            session = next;
        }
        flushWritten();
    }

    /** The stack in listing order, earliest first, so that no session waits behind later ones. */
    private static ServerSessionImpl reverse(ServerSessionImpl head) {
        ServerSessionImpl previous = null;
        while (head != null) {
            ServerSessionImpl next = head.nextDirty;
            head.nextDirty = previous;
            previous = head;
            head = next;
        }
        return previous;
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
        return "LoopFlusher[" + loop + (listed.get() == null ? "" : ", listed") + "]";
    }
}
