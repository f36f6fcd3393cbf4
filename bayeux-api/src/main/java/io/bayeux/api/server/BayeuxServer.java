package io.bayeux.api.server;

import io.bayeux.api.Bayeux;
import io.bayeux.api.Session;

import java.util.Collection;
import java.util.List;

/**
 * The server side of Bayeux: channels, sessions, extensions and the security policy.
 * Implementations are thread-safe.
 */
public interface BayeuxServer extends Bayeux {
    /** Adds an extension that sees every incoming and outgoing message. */
    void addExtension(Extension extension);

    void removeExtension(Extension extension);

    List<Extension> getExtensions();

    /** Adds a {@link SessionListener}, {@link ChannelListener} or {@link SubscriptionListener}. */
    void addListener(BayeuxServerListener listener);

    void removeListener(BayeuxServerListener listener);

    /** The channel with that name, or {@code null} when it does not exist. */
    ServerChannel getChannel(String channelId);

    /** A snapshot of the existing channels. */
    Collection<ServerChannel> getChannels();

    /**
     * Returns the channel, creating it first when absent. A created channel is configured by
     * the initializers before any other thread can see it, so no message reaches it
     * unconfigured. Initializers may run on a channel that loses a race with a concurrent
     * creation and is then discarded; they should not have side effects outside the channel.
     *
     * @return the channel, and whether this call created it
     * @throws IllegalArgumentException when the name is invalid
     */
    MarkedReference<ServerChannel> createChannelIfAbsent(String channelName, ConfigurableServerChannel.Initializer... initializers);

    /** The session with that id, or {@code null}. */
    ServerSession getSession(String clientId);

    /** A snapshot of the sessions. */
    Collection<ServerSession> getSessions();

    /**
     * Removes a session as a disconnect would: its {@link ServerSession.RemoveListener}s are
     * told (with timeout false) and its queue is dropped.
     *
     * @return whether the session existed
     */
    boolean removeSession(ServerSession session);

    /** Creates a new, not yet handshaken, in-process session. */
    LocalSession newLocalSession(String idHint);

    /** A new empty mutable message. */
    ServerMessage.Mutable newMessage();

    SecurityPolicy getSecurityPolicy();

    void setSecurityPolicy(SecurityPolicy securityPolicy);

    /**
     * The context of the message being handled on the calling thread, as CometD has it: set
     * while the server runs a message from the network through its extensions, security
     * policy, authorizers and listeners, {@code null} anywhere else (another thread, a timer, a
     * local session's message). Code that is given the message should prefer
     * {@link ServerMessage#getBayeuxContext()}, which works on any thread.
     */
    BayeuxContext getContext();

    /** Marker for listeners of the server. */
    interface BayeuxServerListener extends BayeuxListener {
    }

    /** Told when sessions are added and removed. */
    interface SessionListener extends BayeuxServerListener {
        /** A session handshook successfully; {@code message} is the handshake request. */
        void sessionAdded(ServerSession session, ServerMessage message);

        /**
         * A session was removed.
         *
         * @param timeout true when it expired, false when it disconnected or was removed
         */
        void sessionRemoved(ServerSession session, ServerMessage message, boolean timeout);
    }

    /**
     * Told when channels are added and removed. As an initializer, it configures every new
     * channel before the channel becomes visible.
     */
    interface ChannelListener extends BayeuxServerListener, ConfigurableServerChannel.Initializer {
        @Override
        default void configureChannel(ConfigurableServerChannel channel) {
        }

        void channelAdded(ServerChannel channel);

        void channelRemoved(String channelId);
    }

    /** Told of every subscription and unsubscription on any channel. */
    interface SubscriptionListener extends BayeuxServerListener {
        void subscribed(ServerSession session, ServerChannel channel, ServerMessage message);

        void unsubscribed(ServerSession session, ServerChannel channel, ServerMessage message);
    }

    /**
     * Sees, and may change or drop, the messages that cross the server.
     *
     * <p>Incoming messages ({@link #rcv}, {@link #rcvMeta}) are seen once each, before the
     * server handles them. Outgoing replies ({@link #sendMeta}) are seen once each. An outgoing
     * published message ({@link #send}) is seen once before it fans out, with {@code to} null
     * for a broadcast and the recipient for {@link ServerSession#deliver}: that is what lets a
     * broadcast be serialized once for all its recipients. Per-recipient changes belong in a
     * {@link ServerSession.Extension}.
     *
     * <p>Returning false drops the message: an incoming one gets a failed reply, an outgoing
     * one is not sent.
     */
    interface Extension {
        default boolean rcv(ServerSession from, ServerMessage.Mutable message) {
            return true;
        }

        default boolean rcvMeta(ServerSession from, ServerMessage.Mutable message) {
            return true;
        }

        default boolean send(ServerSession from, ServerSession to, ServerMessage.Mutable message) {
            return true;
        }

        default boolean sendMeta(ServerSession to, ServerMessage.Mutable message) {
            return true;
        }
    }
}
