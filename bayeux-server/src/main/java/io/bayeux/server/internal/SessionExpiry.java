package io.bayeux.server.internal;

/**
 * When a session expires: {@code interval + maxInterval} after its last connect ended, never
 * while a connect is held or in progress, nor while the server holds back reading its
 * connection (its next connect may be waiting there). The {@link Sweeper} asks, of the sessions
 * this tells it are counting: from the handshake or the end of a connect until the next connect.
 *
 * <p>Its one mutable field is guarded by the session's {@link SessionLock}, which the methods
 * take themselves unless they say "under the lock".
 */
final class SessionExpiry {
    private final ServerSessionImpl session;
    private final SessionLock lock;
    /** Guarded by lock: when the session expires (scheduler time), 0 while a connect is in progress. */
    private long expireAt;

    SessionExpiry(ServerSessionImpl session, SessionLock lock) {
        this.session = session;
        this.lock = lock;
    }

    /** Under the lock: the handshake succeeded; the first connect has {@code maxInterval} to come. */
    void start() {
        expireAt = now() + session.maxInterval();
        sweeper().counting(session);
    }

    /** Under the lock: a connect arrived, or is held; the session does not expire until it ends. */
    void suspend() {
        expireAt = 0;
        sweeper().suspended(session);
    }

    /** Under the lock: another message arrived; unless a connect is in progress, a whole {@code maxInterval} from now. */
    void extend() {
        if (expireAt != 0) {
            expireAt = Math.max(expireAt, now() + session.maxInterval());
        }
    }

    /** Under the lock: the last connect ended, or the connection pushed to went away; counting starts. */
    void arm() {
        if (session.connectHold().held() == null && !session.isRemoved()) {
            expireAt = now() + session.interval() + session.maxInterval();
            sweeper().counting(session);
        }
    }

    /** A message arrived from the client: a connect suspends expiry (and is no longer due), anything else extends it. */
    void messageArrived(boolean connect) {
        lock.lock();
        try {
            if (connect) {
                suspend();
                session.connectHold().connectArrived();
            } else {
                extend();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Its connection is read again after the server held it back: a whole maxInterval for the connect that waited. */
    void heldBackEnded() {
        lock.lock();
        try {
            extend();
        } finally {
            lock.unlock();
        }
    }

    /** Whether the session has expired at scheduler time {@code now}. */
    boolean isExpired(long now) {
        if (session.localSession() != null) {
            return false;
        }
        lock.lock();
        try {
            ConnectionImpl connection = session.outbox().pushConnection();
            return !session.isRemoved() && expireAt != 0 && now > expireAt
                    && (connection == null || !connection.isHeldBack());
        } finally {
            lock.unlock();
        }
    }

    /**
     * What an expiry is to be read with, for the log: how long since the last connect ended,
     * and the state of the connection pushes went to.
     */
    String context(long now) {
        lock.lock();
        try {
            ConnectionImpl connection = session.outbox().pushConnection();
            String pushTo = connection == null ? "no push connection"
                    : "push connection " + connection.endpoint() + (connection.endpoint().isWritable() ? " writable" : " unwritable")
                    + (connection.endpoint().isStalled() ? ", stalled" : "") + (connection.isHeldBack() ? ", held back" : "");
            return (now - expireAt + session.maxInterval()) + " ms since its last connect ended, "
                    + session.outbox().size() + " queued, " + pushTo;
        } finally {
            lock.unlock();
        }
    }

    private Sweeper sweeper() {
        return session.server().sweeper();
    }

    private long now() {
        return session.server().scheduler().now();
    }

    @Override
    public String toString() {
        return "SessionExpiry[" + session.getId() + "]";
    }
}
