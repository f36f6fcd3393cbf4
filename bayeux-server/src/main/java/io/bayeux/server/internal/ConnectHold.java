package io.bayeux.server.internal;

import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession.HeartBeatListener;
import io.bayeux.server.BayeuxServerConfig;

import java.util.List;
import java.util.concurrent.Future;

/**
 * A session's held {@code /meta/connect}, for endpoints that cannot push: the batch that
 * waits for messages or its timeout, and the gather wait that keeps the replies that carry
 * the queue at least {@link BayeuxServerConfig#connectGather()} apart.
 *
 * <p>Every mutable field is guarded by the session's {@link SessionLock}, which the methods
 * take themselves unless they say "under the lock". {@link HeartBeatListener}s and the held
 * batch's resumption run after it is released.
 */
final class ConnectHold {
    private final ServerSessionImpl session;
    private final SessionLock lock;
    /** Guarded by lock. */
    private PendingBatch heldConnect;
    /** When (scheduler time) a connect reply last went out or a held connect was dropped; guarded by lock. */
    private long connectEndedAt = Long.MIN_VALUE / 2;
    /** Whether the last reply that carried the queue left messages in it (maxBatchBytes): they go without gathering. Guarded by lock. */
    private boolean replyLeftMessages;
    /**
     * Guarded by lock: a connect reply went to a long-polling client that connects again at once,
     * and its next connect has not come yet. The queue waits for that connect, as for a held one,
     * for {@code maxInterval} at most.
     */
    private boolean connectDue;

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
        lock.lock();
        try {
            return heldConnect != null;
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: the held connect, or null. */
    PendingBatch held() {
        return heldConnect;
    }

    /**
     * What the reply to a request that holds no {@code /meta/connect} carries of the queue (see
     * {@link SessionOutbox#takeQueue}): nothing while a connect of the session is held, or due at
     * once after the reply to the last one. The messages wait for that connect's reply (the
     * session's connect is woken for them as usual): a client that has a reply on each of two
     * connections may read them in either order, and would then see later messages before
     * earlier ones.
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
     * Under the lock: whether a connect of the session is held, or due at once after the reply
     * to the last one; not past {@code maxInterval}: a client that keeps sending other requests
     * but no connect gets its messages in their replies again.
     */
    private boolean heldOrDue() {
        return heldConnect != null
                || connectDue && session.server().scheduler().now() - connectEndedAt < session.maxInterval();
    }

    /** Under the lock: whether the last reply that carried the queue left messages in it. */
    void replyLeftMessages(boolean left) {
        replyLeftMessages = left;
    }

    /** Under the lock: a connect of the session arrived; the queue waits no longer for it. */
    void connectArrived() {
        connectDue = false;
    }

    /**
     * Under the lock: how long a held connect that should carry queued messages waits still, so
     * that replies are at least {@link BayeuxServerConfig#connectGather()} apart; 0 or less: none.
     * What the last reply could not carry (it was full) goes at once.
     */
    long gatherWait() {
        BayeuxServerImpl server = session.server();
        long gather = server.connectGatherMillis();
        return gather == 0 || replyLeftMessages ? 0 : connectEndedAt + gather - server.scheduler().now();
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
            connectEndedAt = session.server().scheduler().now();
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
