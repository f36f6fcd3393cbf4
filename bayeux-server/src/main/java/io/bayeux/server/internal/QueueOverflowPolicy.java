package io.bayeux.server.internal;

import io.bayeux.api.Message;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.QueueOverflow;
import io.bayeux.server.spi.ServerObserver;
import io.bayeux.server.ext.AcknowledgedMessagesExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Applies a {@link QueueOverflow} to the queue of every remote session of a server: added as a
 * {@link BayeuxServer.SessionListener}, it listens to each session's queue. With
 * {@link QueueOverflow#DISCONNECT} (the default) the session is removed and its client told
 * {@value #QUEUE_FULL}, with the advice to handshake again: no message is lost without the
 * client knowing, nothing after the first one dropped reaches it (what it received has no gap),
 * and a client with recovery gets back from the channels' history what it missed. A session
 * with acknowledged delivery is never dropped from, whatever the policy.
 *
 * <p>Thread-safe: {@link #queueMaxed} runs under the full session's lock (as
 * {@code QueueMaxedListener}s do), so a disconnect is handed to the executor, once per session.
 */
public final class QueueOverflowPolicy implements BayeuxServer.SessionListener, ServerSession.QueueMaxedListener {
    /** The error a client sees when its session's queue overflowed and the session was removed. */
    public static final String QUEUE_FULL = "409::queue_full";
    private static final Logger LOG = LoggerFactory.getLogger(QueueOverflowPolicy.class);

    private final QueueOverflow overflow;
    private final Executor executor;
    /** The sessions being disconnected for an overflow: once each, whatever overflows meanwhile. */
    private final Set<ServerSession> disconnecting = ConcurrentHashMap.newKeySet();

    /** A policy of {@code overflow} that disconnects sessions on {@code executor} (never under their lock). */
    public QueueOverflowPolicy(QueueOverflow overflow, Executor executor) {
        this.overflow = Objects.requireNonNull(overflow, "overflow");
        this.executor = Objects.requireNonNull(executor, "executor");
    }

    @Override
    public void sessionAdded(ServerSession session, ServerMessage message) {
        if (!session.isLocalSession()) {
            // One listener shared by every session: an idle session costs nothing more.
            session.addListener(this);
        }
    }

    @Override
    public boolean queueMaxed(ServerSession s, Queue<ServerMessage> queue, ServerSession sender, Message m) {
        QueueOverflow policy = policyOf(s);
        if (s instanceof ServerSessionImpl impl) {
            ServerObserver observer = impl.server().observer();
            if (observer != null) {
                observer.queueOverflowed(policy);
            }
        }
        return switch (policy) {
            case DROP_OLDEST -> {
                queue.poll();
                yield true;
            }
            case DROP_NEWEST -> false;
            case DISCONNECT -> {
                // Under the session lock: remove it from another thread, once, whatever overflows meanwhile.
                if (disconnecting.add(s)) {
                    try {
                        executor.execute(() -> disconnect(s));
                        // Nothing after the message dropped gets through: the client's last
                        // message is where it recovers from.
                        if (s instanceof ServerSessionImpl impl) {
                            impl.outbox().refuseUntilRemoved();
                        }
                    } catch (RejectedExecutionException x) {
                        LOG.warn("Cannot disconnect {}, whose queue is full: executor overloaded; the next overflow tries again", s);
                        disconnecting.remove(s);
                    }
                }
                yield false;
            }
        };
    }

    private QueueOverflow policyOf(ServerSession session) {
        return AcknowledgedMessagesExtension.sessionExtension(session) != null ? QueueOverflow.DISCONNECT : overflow;
    }

    /** The client is told why (a /meta/disconnect could not get past its full queue). */
    private static void disconnect(ServerSession session) {
        if (session instanceof ServerSessionImpl impl) {
            impl.disconnect(QUEUE_FULL);
        } else {
            session.disconnect();
        }
    }

    @Override
    public void sessionRemoved(ServerSession session, ServerMessage message, boolean timeout) {
        disconnecting.remove(session);
    }

    @Override
    public String toString() {
        return "QueueOverflowPolicy[" + overflow + "]";
    }
}
