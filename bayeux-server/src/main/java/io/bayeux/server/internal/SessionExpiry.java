package io.bayeux.server.internal;

/**
 * When a session expires: {@code interval + maxInterval} after its last connect ended, never
 * while a connect is held or in progress, nor while the server holds back reading its
 * connection (its next connect may be waiting there). The {@link Sweeper} asks, of the sessions
 * this lists with it when they start counting (after the handshake, at the end of a connect).
 * A session stays listed while its connects come and go, so that a long-polling session's
 * every cycle costs the list nothing; the sweep takes off its list the sessions it finds
 * suspended twice in a row with no count between (an idle WebSocket session holds its connect:
 * it costs the sweeps nothing after the second).
 *
 * <p>Its mutable fields are guarded by the session's {@link SessionLock}, which the methods
 * take themselves unless they say "under the lock".
 */
final class SessionExpiry {
    private final ServerSessionImpl session;
    private final SessionLock lock;
    /** Guarded by lock: when the session expires (scheduler time), 0 while a connect is in progress. */
    private long expireAt;
    /** Guarded by lock: whether the session is on the sweeper's list. */
    private boolean listed;
    /** Guarded by lock: the last sweep found the expiry suspended, and it has not counted since. */
    private boolean suspendedAtSweep;

    SessionExpiry(ServerSessionImpl session, SessionLock lock) {
        this.session = session;
        this.lock = lock;
    }

    /** Under the lock: the handshake succeeded; the first connect has {@code maxInterval} to come. */
    void start() {
        expireAt = now() + session.maxInterval();
        list();
    }

    /** Under the lock: a connect arrived, or is held; the session does not expire until it ends. */
    void suspend() {
        // Still listed: the sweep takes it off if it stays suspended.
        expireAt = 0;
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
            suspendedAtSweep = false;
            list();
        }
    }

    /** Under the lock, as a count that starts lists the session again: the sweeps no longer look at it. */
    private void unlist() {
        listed = false;
        suspendedAtSweep = false;
        sweeper().unlist(session);
    }

    /** Under the lock: the sweeps look at the session from now on. */
    private void list() {
        if (!listed) {
            listed = true;
            sweeper().list(session);
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

    /**
     * A sweep at scheduler time {@code now} looks at the session: takes it off the sweeper's list
     * when it expired, or when its expiry was suspended at this sweep and the one before with no
     * count between.
     *
     * @return whether the session has expired
     */
    boolean swept(long now) {
        if (session.localSession() != null) {
            return false;
        }
        lock.lock();
        try {
            if (expireAt == 0) {
                if (suspendedAtSweep) {
                    unlist();
                } else {
                    suspendedAtSweep = true;
                }
                return false;
            }
            ConnectionImpl connection = session.outbox().pushConnection();
            boolean expired = !session.isRemoved() && now > expireAt && (connection == null || !connection.isHeldBack());
            if (expired) {
                unlist();
            }
            return expired;
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
