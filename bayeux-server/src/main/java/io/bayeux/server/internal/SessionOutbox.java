package io.bayeux.server.internal;

import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.spi.Endpoint;
import io.bayeux.server.spi.ServerObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * What goes out to one session: its {@link SessionQueue}, the connection it is pushed to, and
 * the way it gets there: listed in its connection's {@link LoopFlusher} round, pushed by its own
 * {@link Flusher} when the endpoint has no loop (or the session has {@code DeQueueListener}s),
 * or carried by the reply to its held {@code /meta/connect} ({@link ConnectHold}).
 *
 * <p>Also the session's share in the server's back-pressure: a session whose reader keeps
 * reading but has half its {@code maxQueue} waiting counts as one the server is
 * {@linkplain BayeuxServerImpl#isBehind() behind} with; and what a recovery replayed, which
 * counts beside the queue's bound until the queue drained.
 *
 * <p>Every mutable field but the round's listing ({@link #dirty}, {@link #nextDirty}) is guarded
 * by the session's {@link SessionLock}, which the methods take themselves unless they say
 * "under the lock". {@code server.backpressure().behind(false)} and pushes run after it is released.
 */
final class SessionOutbox implements Endpoint.PushFailure {
    private static final Logger LOG = LoggerFactory.getLogger(SessionOutbox.class);

    /** Queue length past which a session with an unbounded queue counts as one the server is behind with. */
    static final int UNBOUNDED_BEHIND_MARK = 1000;
    private static final VarHandle DIRTY;

    static {
        try {
            DIRTY = MethodHandles.lookup().findVarHandle(SessionOutbox.class, "dirty", int.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final ServerSessionImpl session;
    private final SessionLock lock;
    /** Guarded by lock. */
    private final SessionQueue queue;
    /** Guarded by lock: the connection queued messages are pushed to, or null. */
    private ConnectionImpl pushConnection;
    /** The pusher for endpoints without an event loop, made when first needed; guarded by lock. */
    private Flusher flusher;
    /** Guarded by lock: whether this session counts in the server's sessions it is behind with. */
    private boolean behind;
    /**
     * How many messages a recovery queued past the bound: a replay never overflows the queue it
     * fills, nor does what follows it, until the queue drained. Guarded by lock.
     */
    private int replayAllowance;
    /**
     * Whether the session overflowed and is being removed for it: nothing more is queued, so
     * what its client received before it is told has no gap, and a recovery from the position
     * of its last message gets back everything after it. Guarded by lock.
     */
    private boolean overflowed;
    /** 1 while listed in a LoopFlusher's round (see markDirty). */
    private volatile int dirty;
    /** The next outbox in the LoopFlusher's list while this one is listed (dirty); written only by whoever lists or takes it. */
    SessionOutbox nextDirty;

    SessionOutbox(ServerSessionImpl session, SessionLock lock) {
        this.session = session;
        this.lock = lock;
        this.queue = new SessionQueue(session);
    }

    ServerSessionImpl session() {
        return session;
    }

    /** The queue itself, for its listener registration (the only part of it callable unlocked). */
    SessionQueue queue() {
        return queue;
    }

    /** How many messages wait. */
    int size() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    // --- queueing

    /**
     * Queues a message that passed the session's extensions and listeners, then gets it on its
     * way: the lazy timer for a lazy one, a push or the held connect for the others.
     *
     * @param lazyTimeout how long the message may wait, or -1 when it is not lazy
     * @param bounded     false for a message replayed from a channel's history (see {@link ServerSessionImpl#deliverReplayed})
     * @return whether it was queued
     */
    boolean offer(ServerSession sender, ServerMessage message, long lazyTimeout, boolean bounded) {
        boolean lazy = lazyTimeout >= 0;
        if (!enqueue(sender, message, lazy, bounded)) {
            return false;
        }
        if (lazy) {
            scheduleLazy(lazyTimeout);
        } else if (dirty == 0) {
            // Listed already: its round has yet to take the queue (it clears the mark first), so it
            // takes this message too.
            wakeUp(false);
        }
        return true;
    }

    private boolean enqueue(ServerSession sender, ServerMessage message, boolean lazy, boolean bounded) {
        lock.lock();
        try {
            if (session.isRemoved() || overflowed || !queue.offer(sender, message, lazy, bounded ? queueBound() : -1)) {
                return false;
            }
            if (!bounded) {
                replayAllowance++;
            }
            if (!behind && queue.size() >= behindMark()) {
                ConnectionImpl connection = pushConnection;
                // A reader that keeps reading but has this much waiting: the server is behind, not
                // the reader. Only sessions pushed from their loop whatever the client sends count:
                // not one whose queue waits for its next /meta/connect, which stopping reading would hold.
                if (connection != null && connection.loopFlusher() != null && !connection.endpoint().isStalled()
                        && session.localSession() == null && !session.isMetaConnectDeliveryOnly() && !queue.hasDeQueueListeners()) {
                    behind = true;
                    session.server().backpressure().behind(true);
                }
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock: the session's {@code maxQueue}, or the lower bound of a stalled reader's
     * queue; beside it, what a recovery replayed, until the queue drained.
     */
    private int queueBound() {
        if (replayAllowance > 0 && queue.isEmpty()) {
            replayAllowance = 0;
        }
        int max = session.getMaxQueue();
        int stalledMax = session.server().config().maxStalledQueue();
        if (stalledMax > 0 && (max < 0 || stalledMax < max)) {
            ConnectionImpl connection = pushConnection;
            if (connection != null && connection.endpoint().isStalled()) {
                return stalledMax + replayAllowance;
            }
        }
        return max < 0 ? max : max + replayAllowance;
    }

    /** The queue length at which a reader that keeps reading counts as one the server is behind with. */
    private int behindMark() {
        int max = session.getMaxQueue();
        return max > 0 ? Math.max(1, max / 2) : UNBOUNDED_BEHIND_MARK;
    }

    /**
     * Under the lock: this session no longer counts as one the server is behind with.
     *
     * @return whether it did: the caller then calls {@code server.backpressure().behind(false)} once unlocked
     */
    private boolean clearBehind() {
        boolean was = behind;
        behind = false;
        return was;
    }

    /** Tells the server, unlocked, that a session stopped counting as one it is behind with. */
    private void caughtUp(boolean wasBehind) {
        if (wasBehind) {
            session.server().backpressure().behind(false);
        }
    }

    private void scheduleLazy(long lazyTimeout) {
        lock.lock();
        try {
            queue.scheduleLazy(session.server(), lazyTimeout, this::lazyTimeoutExpired);
        } finally {
            lock.unlock();
        }
    }

    /** On the executor: the lazy timer armed as {@code generation} fired. */
    private void lazyTimeoutExpired(long generation) {
        lock.lock();
        try {
            if (!queue.lazyExpired(generation)) {
                return;
            }
        } finally {
            lock.unlock();
        }
        wakeUp(true);
    }

    /**
     * Under the lock (a {@code QueueMaxedListener}'s): the session overflowed and its removal is
     * on its way; until then every message for it is refused, a replayed one too, though its
     * queue may drain meanwhile.
     */
    void refuseUntilRemoved() {
        overflowed = true;
    }

    /** Under the lock: the session went away; its queue and connection are dropped. @return as {@link #clearBehind()} */
    boolean removed() {
        queue.clear();
        pushConnection = null;
        return clearBehind();
    }

    /**
     * Under the lock: whether a reply to the session's connect would carry what is due: no
     * connection pushes it, or the session wants its messages in connect replies only.
     */
    boolean replyCarriesDueMessages() {
        return (pushConnection == null || session.isMetaConnectDeliveryOnly()) && queue.isDue();
    }

    // --- getting it out

    /**
     * Something should go out: push it, or release the held connect to carry it.
     *
     * @param lazyDue whether lazy messages are due as well
     */
    void wakeUp(boolean lazyDue) {
        if (session.isBatching()) {
            return;
        }
        PendingBatch held = null;
        long gatherWait = 0;
        LoopFlusher loopFlusher = null;
        Flusher pusher = null;
        lock.lock();
        try {
            if (queue.isEmpty() || !(lazyDue || queue.isDue())) {
                return;
            }
            if (lazyDue) {
                queue.makeDue();
            }
            ConnectionImpl connection = pushConnection;
            if (connection != null && (session.localSession() != null || !session.isMetaConnectDeliveryOnly())) {
                // DeQueueListeners are application code: they never run on an event loop.
                loopFlusher = queue.hasDeQueueListeners() ? null : connection.loopFlusher();
                if (loopFlusher == null) {
                    if (flusher == null) {
                        flusher = new Flusher(this);
                    }
                    pusher = flusher;
                }
            } else {
                ConnectHold hold = session.connectHold();
                held = hold.held();
                gatherWait = held != null ? hold.gatherWait() : 0;
            }
        } finally {
            lock.unlock();
        }
        if (loopFlusher != null) {
            loopFlusher.schedule(this);
        } else if (pusher != null) {
            pusher.flush();
        } else if (gatherWait > 0) {
            held.resumeAfter(gatherWait);
        } else if (held != null) {
            held.resume();
        }
    }

    /** Lists the outbox in a LoopFlusher's round. @return false when it is listed already */
    boolean markDirty() {
        return DIRTY.compareAndSet(this, 0, 1);
    }

    /** Its round took it off the list: from now on a new message lists it again. */
    void clearDirty() {
        dirty = 0;
    }

    /**
     * On the push connection's event loop: writes what is queued, in frames of at most
     * {@link BayeuxServerConfig#maxBatchBytes()}, while the endpoint is writable (its
     * {@code writable()} brings the session back for the rest).
     *
     * @param tally hears of each frame pushed while the server is observed
     * @return the connection written to, to be flushed at the end of the round, or null
     */
    ConnectionImpl pushOnLoop(DeliveryTally tally) {
        ConnectionImpl written = null;
        ServerObserver observer = session.server().observer();
        while (true) {
            ConnectionImpl connection;
            List<ServerMessage> batch;
            boolean reroute;
            boolean wasBehind;
            boolean more;
            int depth = 0;
            lock.lock();
            try {
                connection = pushConnection;
                // A connection that replaced the one written to is listed by whoever set it.
                if (connection == null || (written != null && connection != written) || session.isRemoved()
                        || (session.localSession() == null && session.isMetaConnectDeliveryOnly()) || !queue.isDue()
                        || !connection.endpoint().isWritable()) {
                    connection = null;
                    batch = List.of();
                    reroute = false;
                } else {
                    reroute = queue.hasDeQueueListeners();
                    depth = queue.size();
                    batch = reroute ? List.of() : takeUnobserved(List.of());
                }
                more = queue.isDue();
                // Caught up once the queue went out; a reader that stopped reading is no longer the server's delay.
                wasBehind = (queue.size() < behindMark() || pushConnection == null || pushConnection.endpoint().isStalled()) && clearBehind();
            } finally {
                lock.unlock();
            }
            caughtUp(wasBehind);
            if (connection == null) {
                return written;
            }
            if (reroute) {
                // A DeQueueListener came after the session was listed: the executor's flusher takes over.
                wakeUp(false);
                return written;
            }
            if (batch.isEmpty()) {
                return written;
            }
            Endpoint endpoint = connection.endpoint();
            try {
                endpoint.push(batch, this);
            } catch (RuntimeException x) {
                LOG.debug("Push of {} messages to {} for {} failed", batch.size(), endpoint, session, x);
                pushFailed(endpoint, batch);
                return written;
            }
            if (observer != null) {
                tally.pushed(observer, session.getTransportName(), batch, depth);
            }
            written = connection;
            if (!more) {
                return written;
            }
            // More than one frame carries: the next one, while the connection takes more.
        }
    }

    /**
     * A session pushed from its event loop gets what is queued (the {@code /meta/disconnect})
     * written before its removal empties the queue: the loop's round would come too late.
     */
    void pushBeforeRemoval() {
        ConnectionImpl connection;
        List<List<ServerMessage>> batches;
        lock.lock();
        try {
            connection = pushConnection;
            if (connection == null || connection.loopFlusher() == null || session.isMetaConnectDeliveryOnly() || queue.isEmpty()) {
                return;
            }
            batches = new ArrayList<>(1);
            // One take when DeQueueListeners shape the queue: it takes what they leave, whole.
            do {
                List<ServerMessage> batch = takeBatch(List.of());
                if (!batch.isEmpty()) {
                    batches.add(batch);
                }
            } while (!queue.hasDeQueueListeners() && !queue.isEmpty());
        } finally {
            lock.unlock();
        }
        connection.loopFlusher().writeNow(connection.endpoint(), batches, session);
    }

    /** Hears of this session's failed pushes (the outbox is its own {@link Endpoint.PushFailure}: nothing made per push). */
    @Override
    public void pushFailed(Endpoint endpoint, List<ServerMessage> batch, Throwable failure) {
        LOG.debug("Push of {} messages to {} for {} failed", batch.size(), endpoint, session, failure);
        pushFailed(endpoint, batch);
    }

    /** The endpoint the flusher writes to, or null. */
    Endpoint pushEndpoint() {
        lock.lock();
        try {
            ConnectionImpl connection = pushConnection;
            return connection == null ? null : connection.endpoint();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes queued messages, after the {@link ServerSession.DeQueueListener}s (run under the lock)
     * had their say: as many as one frame or response carries (see {@link BayeuxServerConfig#maxBatchBytes()}).
     *
     * @param replies the replies the messages go out with (a connect reply when they ride with one), possibly none
     */
    List<ServerMessage> takeQueue(List<ServerMessage.Mutable> replies) {
        lock.lock();
        try {
            return takeReplyBatch(replies);
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: what a reply or push carries of the queue, noting whether it left some. */
    List<ServerMessage> takeReplyBatch(List<ServerMessage.Mutable> replies) {
        List<ServerMessage> batch = takeBatch(replies);
        session.connectHold().replyTook(batch.size(), !queue.isEmpty());
        return batch;
    }

    /** Under the lock: what one frame or response carries of the queue, its queue depth told to the observer. */
    private List<ServerMessage> takeBatch(List<ServerMessage.Mutable> replies) {
        ServerObserver observer = session.server().observer();
        int depth = queue.size();
        List<ServerMessage> batch = takeUnobserved(replies);
        if (observer != null && !batch.isEmpty()) {
            observer.queueDepth(depth);
        }
        return batch;
    }

    /** Under the lock: what one frame or response carries of the queue. */
    private List<ServerMessage> takeUnobserved(List<ServerMessage.Mutable> replies) {
        BayeuxServerImpl server = session.server();
        return queue.take(replies, server.config().maxBatchBytes(), server.jsonArrays().encodedLength());
    }

    /** A push failed: the connection is gone; its messages go back to the front of the queue. */
    void pushFailed(Endpoint endpoint, List<ServerMessage> batch) {
        boolean wasBehind = false;
        lock.lock();
        try {
            if (pushConnection != null && pushConnection.endpoint() == endpoint) {
                wasBehind = dropPushConnection();
            }
            if (!session.isRemoved()) {
                queue.requeue(batch);
            }
        } finally {
            lock.unlock();
        }
        caughtUp(wasBehind);
    }

    // --- the connection pushed to

    /** Messages of this session arrived over {@code connection}; a pushing one becomes the way out. */
    void bind(ConnectionImpl connection) {
        boolean changed;
        lock.lock();
        try {
            changed = !session.isRemoved() && pushConnection != connection;
            if (changed) {
                pushConnection = connection;
            }
        } finally {
            lock.unlock();
        }
        if (changed) {
            connection.bound(this);
            wakeUp(true);
        }
    }

    /** The connection stayed unwritable: its reader does not read; the server is not behind with it. */
    void stalled(ConnectionImpl connection) {
        boolean wasBehind = false;
        lock.lock();
        try {
            if (pushConnection == connection) {
                wasBehind = clearBehind();
            }
        } finally {
            lock.unlock();
        }
        caughtUp(wasBehind);
    }

    /** The connection closed: stop pushing to it. */
    void unbind(ConnectionImpl connection) {
        boolean wasBehind = false;
        lock.lock();
        try {
            if (pushConnection == connection) {
                wasBehind = dropPushConnection();
            }
        } finally {
            lock.unlock();
        }
        caughtUp(wasBehind);
    }

    /** Under the lock: nothing is pushed from now on; expiry starts counting. @return as {@link #clearBehind()} */
    private boolean dropPushConnection() {
        pushConnection = null;
        session.expiry().arm();
        return clearBehind();
    }

    /** Under the lock: the connection pushed to, or null. */
    ConnectionImpl pushConnection() {
        return pushConnection;
    }

    @Override
    public String toString() {
        return "SessionOutbox[" + session.getId() + "]";
    }
}
