package io.bayeux.server.internal;

import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession.HeartBeatListener;
import io.bayeux.server.BayeuxServerConfig;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.Future;

/**
 * A session's held {@code /meta/connect}, for endpoints that cannot push: the batch that
 * waits for messages or its timeout, and the gather wait that keeps the replies that carry
 * the queue at least {@link BayeuxServerConfig#connectGather()} apart while the session
 * receives often enough for the wait to gather more than one message.
 *
 * <p>How often is measured on the replies, not on each message: each connect reply notes what
 * the replies took from the queue since the one before and the time between them; the rate is
 * the ratio of the two, each averaged over the recent replies (an average of the ratios would
 * be thrown by two replies that happen to come close together).
 *
 * <p>Every mutable field but {@code advised} is guarded by the session's {@link SessionLock},
 * which the methods take themselves unless they say "under the lock". {@link HeartBeatListener}s
 * and the held batch's resumption run after it is released.
 */
final class ConnectHold {
    /** How much the last connect reply weighs in the session's recent rate. */
    private static final double RECENT_WEIGHT = 0.2;
    /** {@link #heldConnect}, read without the lock by {@link #isHeld}. */
    private static final VarHandle HELD;

    static {
        try {
            HELD = MethodHandles.lookup().findVarHandle(ConnectHold.class, "heldConnect", PendingBatch.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final ServerSessionImpl session;
    private final SessionLock lock;
    /** Guarded by lock; read without it by {@link #isHeld}. */
    private PendingBatch heldConnect;
    /** When (scheduler time) a connect reply last went out or a held connect was dropped; guarded by lock. */
    private long connectEndedAt = Long.MIN_VALUE / 2;
    /** Whether the last reply that carried the queue left messages in it (maxBatchBytes): they go without gathering. Guarded by lock. */
    private boolean replyLeftMessages;
    /** The messages replies took from the queue since the last connect reply; guarded by lock. */
    private long taken;
    /** The messages taken between two connect replies and the time between them (ms), averaged over the recent replies; guarded by lock. */
    private double recentMessages;
    private double recentMillis;
    /**
     * Guarded by lock: a connect reply went to a long-polling client that connects again at once,
     * and its next connect has not come yet. The queue waits for that connect, as for a held one,
     * for {@code maxInterval} at most.
     */
    private boolean connectDue;
    /**
     * Guarded by lock: a connect of the session arrived and is neither held nor answered yet. Its
     * reply will carry the queue: until then the replies to the session's other requests leave it.
     */
    private boolean connectArriving;
    /**
     * The session's settings the client was last advised of in a connect reply, or null (see
     * {@link ServerSessionImpl#takeAdvice}). Not guarded: written by the threads that make
     * connect replies, without the lock; a race costs at most one advice more. (Here, not in the
     * session, where it would make every session 8 bytes bigger.)
     */
    private SessionSettings advised;

    ConnectHold(ServerSessionImpl session, SessionLock lock) {
        this.session = session;
        this.lock = lock;
    }

    /**
     * Holds a connect.
     *
     * @return false when it must not be held (the session went away, or messages are waiting
     *         that only a reply can carry): the caller replies at once
     */
    boolean hold(PendingBatch pending, long timeoutMillis) {
        PendingBatch previous;
        long gatherWait = 0;
        lock.lock();
        try {
            if (session.isRemoved()) {
                return false;
            }
            if (session.outbox().replyCarriesDueMessages()) {
                gatherWait = gatherWait();
                if (gatherWait <= 0) {
                    return false;
                }
            }
            previous = heldConnect;
            heldConnect = pending;
            connectArriving = false;
            session.expiry().suspend();
        } finally {
            lock.unlock();
        }
        if (previous != null) {
            previous.resume();
        }
        BayeuxServerImpl server = session.server();
        // On the endpoint's event loop when it has one: a held long-poll is a timer there.
        Future<?> timer = pending.connection.endpoint().schedule(pending, timeoutMillis);
        pending.timer(timer != null ? timer : server.scheduleWork(pending::timedOut, timeoutMillis));
        suspended(pending, timeoutMillis);
        if (gatherWait > 0) {
            pending.resumeAfter(gatherWait);
        }
        return true;
    }

    /** The held connect is over (replied or cancelled): forget it. */
    void released(PendingBatch pending) {
        lock.lock();
        try {
            if (heldConnect == pending) {
                heldConnect = null;
            }
        } finally {
            lock.unlock();
        }
    }

    /** The held connect, released at once; used when the session goes away. */
    PendingBatch take() {
        lock.lock();
        try {
            PendingBatch held = heldConnect;
            heldConnect = null;
            return held;
        } finally {
            lock.unlock();
        }
    }

    /** Whether a {@code /meta/connect} of this session is held now. */
    boolean isHeld() {
        // Without the lock, which a census of every session would take once per session: the
        // field is written under the lock, whose release publishes it; a reader may see it a moment late.
        return HELD.getOpaque(this) != null;
    }

    /** Under the lock: the held connect, or null. */
    PendingBatch held() {
        return heldConnect;
    }

    /**
     * What the reply to a request that holds no {@code /meta/connect} carries of the queue (see
     * {@link SessionOutbox#takeQueue}): nothing while a connect of the session is held, on its way
     * through the server, or due at once after the reply to the last one. The messages wait for
     * that connect's reply (the session's connect is woken for them as usual): a client that has a
     * reply on each of two connections may read them in either order, and would then see later
     * messages before earlier ones.
     */
    List<ServerMessage> takeQueueBesideConnect(List<ServerMessage.Mutable> replies) {
        lock.lock();
        try {
            return heldOrDue() ? List.of() : session.outbox().takeReplyBatch(replies);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock: whether a connect of the session is held or on its way through the server,
     * or due at once after the reply to the last one; not past {@code maxInterval}: a client that
     * keeps sending other requests but no connect gets its messages in their replies again.
     */
    private boolean heldOrDue() {
        return heldConnect != null || connectArriving
                || connectDue && session.server().scheduler().now() - connectEndedAt < session.maxInterval();
    }

    /** Whether the client is still to be advised of {@code current}; if so, it counts as advised from now on. */
    boolean takeAdvice(SessionSettings current) {
        if (advised == current) {
            return false;
        }
        advised = current;
        return true;
    }

    /** The next connect reply advises the client again. */
    void forgetAdvice() {
        advised = null;
    }

    /** Under the lock: a reply took {@code messages} from the queue, and left some in it or not. */
    void replyTook(int messages, boolean left) {
        taken += messages;
        replyLeftMessages = left;
    }

    /** Under the lock: a connect of the session arrived; the queue waits for its reply, held or not. */
    void connectArrived() {
        connectDue = false;
        connectArriving = true;
    }

    /**
     * Under the lock: how long a held connect that should carry queued messages waits still, so
     * that replies are at least {@link BayeuxServerConfig#connectGather()} apart; 0 or less: none.
     * No wait when the session's recent rate would bring less than one more message in a whole
     * gather time (waiting would cost latency and save no reply), nor for what the last reply
     * could not carry (it was full).
     */
    long gatherWait() {
        BayeuxServerImpl server = session.server();
        long gather = server.connectGatherMillis();
        if (gather == 0 || replyLeftMessages || recentMessages * gather <= recentMillis) {
            return 0;
        }
        return connectEndedAt + gather - server.scheduler().now();
    }

    /** Under the lock: a connect reply went out at {@code now}; the recent rate takes in what the replies took since the last one. */
    private void measure(long now) {
        // A long quiet time weighs as ten gather times: a session that gets busy gathers again after about ten replies.
        long cap = 10 * session.server().connectGatherMillis();
        double millis = Math.clamp(now - connectEndedAt, 0, cap);
        recentMessages += RECENT_WEIGHT * (taken - recentMessages);
        recentMillis += RECENT_WEIGHT * (millis - recentMillis);
        taken = 0;
    }

    /**
     * A connect reply went out, or a held connect was dropped: expiry starts counting.
     *
     * @param connectsAgain whether the reply went to a long-polling client that connects again at
     *        once (it asked to be held, and the advised interval is 0): until its next connect, the
     *        replies to its other requests leave the queue to that connect
     */
    void ended(boolean connectsAgain) {
        lock.lock();
        try {
            long now = session.server().scheduler().now();
            measure(now);
            connectEndedAt = now;
            connectArriving = false;
            connectDue = connectsAgain && !session.isRemoved() && session.interval() == 0;
            if (heldConnect == null) {
                session.expiry().arm();
            }
        } finally {
            lock.unlock();
        }
    }

    /** A connect of this session is held for {@code timeout} ms: its HeartBeatListeners hear of it. */
    private void suspended(PendingBatch held, long timeout) {
        List<HeartBeatListener> listeners = session.listeners().heartBeat();
        if (listeners.isEmpty()) {
            return;
        }
        ServerMessage connect = held.connectMessage();
        for (HeartBeatListener listener : listeners) {
            session.server().safely(listener, () -> listener.onSuspended(session, connect, timeout));
        }
    }

    /** A held connect of this session is answered; {@code timeout}: because its hold expired. */
    void resumed(PendingBatch held, boolean timeout) {
        List<HeartBeatListener> listeners = session.listeners().heartBeat();
        if (listeners.isEmpty()) {
            return;
        }
        ServerMessage connect = held.connectMessage();
        for (HeartBeatListener listener : listeners) {
            session.server().safely(listener, () -> listener.onResumed(session, connect, timeout));
        }
    }

    @Override
    public String toString() {
        return "ConnectHold[" + session.getId() + "]";
    }
}
