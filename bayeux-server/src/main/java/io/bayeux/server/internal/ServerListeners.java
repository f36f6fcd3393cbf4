package io.bayeux.server.internal;

import io.bayeux.api.server.BayeuxServer.BayeuxServerListener;
import io.bayeux.api.server.BayeuxServer.ChannelListener;
import io.bayeux.api.server.BayeuxServer.SessionListener;
import io.bayeux.api.server.BayeuxServer.SubscriptionListener;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The server's session, channel and subscription listeners, and the events they hear. Each
 * call runs through {@link BayeuxServerImpl#safely}: a throwing listener is logged and skipped.
 * Never called under a lock.
 *
 * <p>Thread-safe: copy-on-write lists, iterated as they were when the event came.
 */
final class ServerListeners {
    private final BayeuxServerImpl server;
    private final List<SessionListener> sessionListeners = new CopyOnWriteArrayList<>();
    private final List<ChannelListener> channelListeners = new CopyOnWriteArrayList<>();
    private final List<SubscriptionListener> subscriptionListeners = new CopyOnWriteArrayList<>();

    ServerListeners(BayeuxServerImpl server) {
        this.server = server;
    }

    /** Adds {@code listener} to the list of each kind it is. @throws IllegalArgumentException when it is of none */
    void add(BayeuxServerListener listener) {
        boolean known = false;
        if (listener instanceof SessionListener l) {
            sessionListeners.add(l);
            known = true;
        }
        if (listener instanceof ChannelListener l) {
            channelListeners.add(l);
            known = true;
        }
        if (listener instanceof SubscriptionListener l) {
            subscriptionListeners.add(l);
            known = true;
        }
        if (!known) {
            throw new IllegalArgumentException("Unknown server listener type: " + listener.getClass().getName());
        }
    }

    void remove(BayeuxServerListener listener) {
        sessionListeners.remove(listener);
        channelListeners.remove(listener);
        subscriptionListeners.remove(listener);
    }

    /** A channel being created: the channel listeners configure it, before anyone can see it. */
    void configureChannel(ServerChannelImpl channel) {
        for (ChannelListener listener : channelListeners) {
            server.safely(listener, () -> listener.configureChannel(channel));
        }
    }

    void channelAdded(ServerChannel channel) {
        for (ChannelListener listener : channelListeners) {
            server.safely(listener, () -> listener.channelAdded(channel));
        }
    }

    void channelRemoved(String channelId) {
        for (ChannelListener listener : channelListeners) {
            server.safely(listener, () -> listener.channelRemoved(channelId));
        }
    }

    /** A session was added: its own AddedListeners hear of it first, then the server's. */
    void sessionAdded(ServerSessionImpl session, ServerMessage message) {
        for (ServerSession.AddedListener listener : session.listeners().added()) {
            server.safely(listener, () -> listener.added(session, message));
        }
        for (SessionListener listener : sessionListeners) {
            server.safely(listener, () -> listener.sessionAdded(session, message));
        }
    }

    /** A session was removed: its own RemoveListeners hear of it first, then the server's. */
    void sessionRemoved(ServerSessionImpl session, ServerMessage message, boolean timeout) {
        for (ServerSession.RemoveListener listener : session.listeners().removed()) {
            server.safely(listener, () -> listener.removed(session, message, timeout));
        }
        for (SessionListener listener : sessionListeners) {
            server.safely(listener, () -> listener.sessionRemoved(session, message, timeout));
        }
    }

    void subscribed(ServerSessionImpl session, ServerChannelImpl channel, ServerMessage message) {
        for (SubscriptionListener listener : subscriptionListeners) {
            server.safely(listener, () -> listener.subscribed(session, channel, message));
        }
    }

    void unsubscribed(ServerSessionImpl session, ServerChannelImpl channel, ServerMessage message) {
        for (SubscriptionListener listener : subscriptionListeners) {
            server.safely(listener, () -> listener.unsubscribed(session, channel, message));
        }
    }
}
