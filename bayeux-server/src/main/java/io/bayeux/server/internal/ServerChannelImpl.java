package io.bayeux.server.internal;

import io.bayeux.api.ChannelId;
import io.bayeux.api.Promise;
import io.bayeux.api.Session;
import io.bayeux.api.server.Authorizer;
import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A channel on the server. Subscribers live in a {@link SubscriberSet} (a few bytes each), iterated without locking on
 * every publish; listeners and authorizers in copy-on-write lists (they change rarely).
 *
 * <p>Lifecycle: what keeps a channel alive (a listener, an authorizer, a subscriber, being
 * persistent) is added under the {@code lifecycle} lock, under which the sweeper also decides
 * to remove an idle channel. So an addition either lands before that decision (and the channel
 * stays), or finds the channel swept and goes to the channel that now has its name (created,
 * with this one's settings, if needed): nothing added is ever lost with a swept channel.
 */
final class ServerChannelImpl implements ServerChannel {
    private final BayeuxServerImpl server;
    private final ChannelId id;
    private final Map<String, Object> attributes = new ConcurrentHashMap<>();
    private final List<ServerChannelListener> listeners = new CopyOnWriteArrayList<>();
    private final List<MessageListener> messageListeners = new CopyOnWriteArrayList<>();
    private final List<SubscriptionListener> subscriptionListeners = new CopyOnWriteArrayList<>();
    private final List<Authorizer> authorizers = new CopyOnWriteArrayList<>();
    private final Set<ServerSessionImpl> subscribers = new SubscriberSet<>();
    private volatile boolean lazy;
    private volatile long lazyTimeout = -1;
    private volatile boolean persistent;
    private volatile Boolean broadcastToPublisher;
    private volatile HistoryPolicy history;
    /** Guards idleSweeps and swept. Never held while calling user code. */
    private final Object lifecycle = new Object();
    /** Consecutive sweeps that found the channel idle. Guarded by lifecycle. */
    private int idleSweeps;
    /** Whether the sweeper removed this channel. Guarded by lifecycle. */
    private boolean swept;

    ServerChannelImpl(BayeuxServerImpl server, ChannelId id) {
        this.server = server;
        this.id = id;
    }

    @Override
    public String getId() {
        return id.getId();
    }

    @Override
    public ChannelId getChannelId() {
        return id;
    }

    @Override
    public void addListener(ServerChannelListener listener) {
        if (!(listener instanceof MessageListener) && !(listener instanceof SubscriptionListener)) {
            throw new IllegalArgumentException("Unknown channel listener type: " + listener.getClass().getName());
        }
        synchronized (lifecycle) {
            if (!swept) {
                if (listener instanceof MessageListener l) {
                    messageListeners.add(l);
                }
                if (listener instanceof SubscriptionListener l) {
                    subscriptionListeners.add(l);
                }
                listeners.add(listener);
                idleSweeps = 0;
                return;
            }
        }
        successor().addListener(listener);
    }

    @Override
    public void removeListener(ServerChannelListener listener) {
        listeners.remove(listener);
        messageListeners.remove(listener);
        subscriptionListeners.remove(listener);
    }

    @Override
    public List<ServerChannelListener> getListeners() {
        return List.copyOf(listeners);
    }

    List<MessageListener> messageListeners() {
        return messageListeners;
    }

    @Override
    public boolean isLazy() {
        return lazy;
    }

    @Override
    public void setLazy(boolean lazy) {
        this.lazy = lazy;
    }

    @Override
    public long getLazyTimeout() {
        return lazyTimeout;
    }

    @Override
    public void setLazyTimeout(long lazyTimeout) {
        if (lazyTimeout < -1 || lazyTimeout == 0) {
            throw new IllegalArgumentException("lazyTimeout must be -1 or positive: " + lazyTimeout);
        }
        this.lazyTimeout = lazyTimeout;
        if (lazyTimeout > 0) {
            this.lazy = true;
        }
    }

    @Override
    public boolean isPersistent() {
        return persistent;
    }

    @Override
    public void setPersistent(boolean persistent) {
        synchronized (lifecycle) {
            if (!swept || !persistent) {
                this.persistent = persistent;
                idleSweeps = 0;
                return;
            }
        }
        successor().setPersistent(true);
    }

    @Override
    public boolean isBroadcastToPublisher() {
        Boolean value = broadcastToPublisher;
        return value != null ? value : server.config().broadcastToPublisher();
    }

    @Override
    public void setBroadcastToPublisher(boolean broadcastToPublisher) {
        this.broadcastToPublisher = broadcastToPublisher;
    }

    @Override
    public HistoryPolicy getHistory() {
        return history;
    }

    @Override
    public void setHistory(HistoryPolicy history) {
        synchronized (lifecycle) {
            if (!swept) {
                this.history = history;
                idleSweeps = 0;
                if (history != null) {
                    server.histories().configured(history);
                }
                return;
            }
        }
        successor().setHistory(history);
    }

    @Override
    public void addAuthorizer(Authorizer authorizer) {
        synchronized (lifecycle) {
            if (!swept) {
                authorizers.add(authorizer);
                idleSweeps = 0;
                return;
            }
        }
        successor().addAuthorizer(authorizer);
    }

    @Override
    public void removeAuthorizer(Authorizer authorizer) {
        authorizers.remove(authorizer);
    }

    @Override
    public List<Authorizer> getAuthorizers() {
        return List.copyOf(authorizers);
    }

    List<Authorizer> authorizers() {
        return authorizers;
    }

    @Override
    public Set<ServerSession> getSubscribers() {
        return Set.copyOf(subscribers);
    }

    Set<ServerSessionImpl> subscribers() {
        return subscribers;
    }

    @Override
    public void publish(Session from, ServerMessage.Mutable message, Promise<Boolean> promise) {
        message.setChannel(id.getId());
        promise.succeed(server.broadcaster().publish(Broadcaster.asServerSession(from), this, message));
    }

    @Override
    public void publish(Session from, Object data, Promise<Boolean> promise) {
        ServerMessage.Mutable message = server.newMessage();
        message.setData(data);
        publish(from, message, promise);
    }

    @Override
    public boolean subscribe(ServerSession session) {
        return subscribe((ServerSessionImpl) session, null);
    }

    boolean subscribe(ServerSessionImpl session, ServerMessage message) {
        ServerChannelImpl joined = join(session);
        if (joined == null) {
            return false;
        }
        joined.notifySubscribed(session, message);
        return true;
    }

    /**
     * Adds a subscriber and tells nobody yet: {@link #notifySubscribed} does, once no lock is
     * held. A channel swept meanwhile passes the session to its successor.
     *
     * @return the channel the session joined, or null when it was subscribed already or removed
     */
    ServerChannelImpl join(ServerSessionImpl session) {
        synchronized (lifecycle) {
            if (!swept) {
                if (session.isRemoved() || !subscribers.add(session)) {
                    return null;
                }
                idleSweeps = 0;
                return this;
            }
        }
        return successor().join(session);
    }

    /** Tells the session and the listeners that the session joined this channel. */
    void notifySubscribed(ServerSessionImpl session, ServerMessage message) {
        session.subscribed(this);
        for (SubscriptionListener listener : subscriptionListeners) {
            server.safely(listener, () -> listener.subscribed(session, this, message));
        }
        server.listeners().subscribed(session, this, message);
    }

    @Override
    public boolean unsubscribe(ServerSession session) {
        return unsubscribe((ServerSessionImpl) session, null);
    }

    boolean unsubscribe(ServerSessionImpl session, ServerMessage message) {
        if (!subscribers.remove(session)) {
            return false;
        }
        session.unsubscribed(this);
        for (SubscriptionListener listener : subscriptionListeners) {
            server.safely(listener, () -> listener.unsubscribed(session, this, message));
        }
        server.listeners().unsubscribed(session, this, message);
        return true;
    }

    @Override
    public void remove() {
        server.removeChannel(this);
    }

    /**
     * Called by the sweeper: counts the sweeps that found the channel idle and, at the third,
     * takes it out of the registry, atomically with that decision.
     *
     * @return whether the channel was removed (its removal listeners are still to be told)
     */
    boolean sweep() {
        synchronized (lifecycle) {
            if (swept) {
                return false;
            }
            boolean idle = !persistent && history == null && subscribers.isEmpty() && listeners.isEmpty() && authorizers.isEmpty();
            idleSweeps = idle ? idleSweeps + 1 : 0;
            if (idleSweeps <= 2) {
                return false;
            }
            swept = true;
            return server.unregister(this);
        }
    }

    /**
     * Someone creates or configures this channel: it starts a new idle count.
     *
     * @return false when the sweeper removed it already: ask the registry again
     */
    boolean touch() {
        synchronized (lifecycle) {
            idleSweeps = 0;
            return !swept;
        }
    }

    /** The channel that took this swept one's place, made with its settings if nobody made it yet. */
    private ServerChannelImpl successor() {
        return (ServerChannelImpl) server.createChannelIfAbsent(getId(), channel -> {
            channel.setLazy(lazy);
            if (lazyTimeout > 0) {
                channel.setLazyTimeout(lazyTimeout);
            }
            Boolean toPublisher = broadcastToPublisher;
            if (toPublisher != null) {
                channel.setBroadcastToPublisher(toPublisher);
            }
            HistoryPolicy policy = history;
            if (policy != null) {
                channel.setHistory(policy);
            }
            attributes.forEach(channel::setAttribute);
        }).getReference();
    }

    @Override
    public void setAttribute(String name, Object value) {
        attributes.put(name, value);
    }

    @Override
    public Object getAttribute(String name) {
        return attributes.get(name);
    }

    @Override
    public Set<String> getAttributeNames() {
        return Set.copyOf(attributes.keySet());
    }

    @Override
    public Object removeAttribute(String name) {
        return attributes.remove(name);
    }

    @Override
    public String toString() {
        return "ServerChannel[" + id + ", subscribers=" + subscribers.size() + (lazy ? ", lazy" : "")
                + (persistent ? ", persistent" : "") + "]";
    }
}
