package io.bayeux.api.server;

import io.bayeux.api.Bayeux;
import io.bayeux.api.Message;
import io.bayeux.api.Promise;
import io.bayeux.api.Session;

import java.util.List;
import java.util.Queue;
import java.util.Set;

/**
 * A client's session on the server: its subscriptions, its queue of messages waiting to go
 * out, its listeners and extensions. Thread-safe.
 */
public interface ServerSession extends Session {
    void addExtension(Extension extension);

    void removeExtension(Extension extension);

    List<Extension> getExtensions();

    /**
     * Adds an {@link AddedListener}, {@link RemoveListener}, {@link MessageListener},
     * {@link QueueListener}, {@link DeQueueListener}, {@link QueueMaxedListener} or
     * {@link HeartBeatListener} (one object may be several).
     */
    void addListener(ServerSessionListener listener);

    void removeListener(ServerSessionListener listener);

    /** The local session this server session belongs to, or {@code null} for a remote client. */
    LocalSession getLocalSession();

    default boolean isLocalSession() {
        return getLocalSession() != null;
    }

    /**
     * Delivers a message to this session only (peer to peer, or the reply to a service call).
     * The message is not published on its channel: no channel listener sees it.
     *
     * @param sender the sending session, or {@code null} for the server
     * @param promise told true when queued, false when an extension or listener dropped it
     */
    void deliver(Session sender, ServerMessage.Mutable message, Promise<Boolean> promise);

    /** Delivers {@code data} on {@code channel} to this session only. */
    void deliver(Session sender, String channel, Object data, Promise<Boolean> promise);

    /**
     * Removes this session from the server because of {@code error}, a Bayeux error such as
     * {@code "402:token_expired:session_expired"}, that its client is told with the advice to
     * handshake again (where {@link #disconnect()} tells it a plain {@code /meta/disconnect}):
     * in the reply to its held {@code /meta/connect}, or else in the reply to its next message.
     */
    void disconnect(String error);

    /** The channels this session is subscribed to. */
    Set<ServerChannel> getSubscriptions();

    /** The user agent the client sent, or {@code null}. */
    String getUserAgent();

    /** The name of the transport the session last used, or {@code null}. */
    String getTransportName();

    /** The per-session advice interval in ms, or -1 for the server's. */
    long getInterval();

    void setInterval(long interval);

    /** The per-session long-poll timeout in ms, or -1 for the server's. */
    long getTimeout();

    void setTimeout(long timeout);

    /** The per-session max interval in ms, or -1 for the server's. */
    long getMaxInterval();

    void setMaxInterval(long maxInterval);

    /** The maximum number of queued messages, or -1 for no limit (the default). */
    int getMaxQueue();

    void setMaxQueue(int maxQueue);

    boolean isBroadcastToPublisher();

    void setBroadcastToPublisher(boolean broadcastToPublisher);

    /** Whether queued messages go out only with replies to {@code /meta/connect}. */
    boolean isMetaConnectDeliveryOnly();

    void setMetaConnectDeliveryOnly(boolean metaConnectDeliveryOnly);

    /** Number of messages waiting in the queue. */
    int getQueueSize();

    /** Marker for session listeners. */
    interface ServerSessionListener extends Bayeux.BayeuxListener {
    }

    /**
     * Told when the session is added to the server, after its handshake succeeded: add it
     * before then (from an extension's {@code rcvMeta} of the handshake, or a
     * {@link SecurityPolicy}). Runs before the server's {@code SessionListener}s.
     */
    @FunctionalInterface
    interface AddedListener extends ServerSessionListener {
        /** @param message the handshake message */
        void added(ServerSession session, ServerMessage message);
    }

    /** Told when the session is removed. */
    @FunctionalInterface
    interface RemoveListener extends ServerSessionListener {
        /**
         * @param message the disconnect message, or {@code null}
         * @param timeout true when the session expired, false when it disconnected or was removed
         */
        void removed(ServerSession session, ServerMessage message, boolean timeout);
    }

    /** Told of each message about to be queued for this session; false drops it. */
    @FunctionalInterface
    interface MessageListener extends ServerSessionListener {
        boolean onMessage(ServerSession session, ServerSession sender, ServerMessage message);
    }

    /**
     * Told of each message added to the queue. Runs with the session lock held: it must not
     * block or call back into the session.
     */
    @FunctionalInterface
    interface QueueListener extends ServerSessionListener {
        /** @param sender the sending session, or {@code null} */
        void queued(ServerSession sender, ServerMessage message);
    }

    /**
     * Told when a {@code /meta/connect} of the session is held (suspended) and when it is
     * answered (resumed). Runs on the thread that handles or answers the connect, never under
     * a lock; a connect answered by a message the instant it was held may be told resumed
     * just before suspended.
     */
    interface HeartBeatListener extends ServerSessionListener {
        /** @param timeout how long, in ms, the connect is held unless something answers it earlier */
        default void onSuspended(ServerSession session, ServerMessage message, long timeout) {
        }

        /** @param timeout whether the connect was held for its whole timeout */
        default void onResumed(ServerSession session, ServerMessage message, boolean timeout) {
        }
    }

    /**
     * Told right before queued messages are taken out of the queue to be sent. Runs with the
     * session lock held: it may remove, reorder or replace queued messages, but must not
     * block or call back into the session.
     */
    @FunctionalInterface
    interface DeQueueListener extends ServerSessionListener {
        /**
         * The queue is taken to go out with {@code replies}: the replies of the batch that
         * carries it (already through the extensions; a {@code /meta/connect} reply among
         * them when the queue rides with one), or none when it is pushed on its own. The
         * listener may change the replies too. Defaults to {@link #deQueue(ServerSession, Queue)}.
         */
        default void deQueue(ServerSession session, Queue<ServerMessage> queue, List<ServerMessage.Mutable> replies) {
            deQueue(session, queue);
        }

        void deQueue(ServerSession session, Queue<ServerMessage> queue);
    }

    /**
     * Told when a message arrives and the queue is at {@code maxQueue}. Runs with the session
     * lock held: it may remove messages from the queue (drop oldest) but must not block.
     */
    @FunctionalInterface
    interface QueueMaxedListener extends ServerSessionListener {
        /**
         * @return true to queue the message anyway (for example after removing older ones),
         *         false to drop it
         */
        boolean queueMaxed(ServerSession session, Queue<ServerMessage> queue, ServerSession sender, Message message);
    }

    /**
     * Sees, and may change or drop, the messages of one session. {@link #send} runs once per
     * recipient: returning the same message keeps the shared, serialized-once form; returning
     * a copy ({@link ServerMessage.Mutable#copy()}) gives this recipient its own.
     */
    interface Extension {
        default boolean rcv(ServerSession session, ServerMessage.Mutable message) {
            return true;
        }

        default boolean rcvMeta(ServerSession session, ServerMessage.Mutable message) {
            return true;
        }

        /** @return the message to send, or {@code null} to drop it */
        default ServerMessage send(ServerSession session, ServerMessage message) {
            return message;
        }

        default boolean sendMeta(ServerSession session, ServerMessage.Mutable message) {
            return true;
        }
    }
}
