package io.bayeux.server;

import io.bayeux.api.ChannelId;
import io.bayeux.api.Promise;
import io.bayeux.api.Session;
import io.bayeux.api.server.Authorizer;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A channel on the server. Subscribers live in a concurrent set, iterated without locking on
 * every publish; listeners and authorizers in copy-on-write lists (they change rarely).
 */
final class ServerChannelImpl implements ServerChannel {
    private final BayeuxServerImpl server;
    private final ChannelId id;
    private final Map<String, Object> attributes = new ConcurrentHashMap<>();
    private final List<ServerChannelListener> listeners = new CopyOnWriteArrayList<>();
    private final List<MessageListener> messageListeners = new CopyOnWriteArrayList<>();
    private final List<SubscriptionListener> subscriptionListeners = new CopyOnWriteArrayList<>();
    private final List<Authorizer> authorizers = new CopyOnWriteArrayList<>();
    private final Set<ServerSessionImpl> subscribers = ConcurrentHashMap.newKeySet();
    private volatile boolean lazy;
    private volatile long lazyTimeout = -1;
    private volatile boolean persistent;
    private volatile Boolean broadcastToPublisher;
    /** Consecutive sweeps that found the channel idle; touched by the sweeper thread only. */
    private int idleSweeps;

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
        boolean known = false;
        if (listener instanceof MessageListener l) {
            messageListeners.add(l);
            known = true;
        }
        if (listener instanceof SubscriptionListener l) {
            subscriptionListeners.add(l);
            known = true;
        }
        if (!known) {
            throw new IllegalArgumentException("Unknown channel listener type: " + listener.getClass().getName());
        }
        listeners.add(listener);
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
        this.persistent = persistent;
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
    public void addAuthorizer(Authorizer authorizer) {
        authorizers.add(authorizer);
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
        promise.succeed(server.publish(server.asServerSession(from), this, message));
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
        if (session.isRemoved() || !subscribers.add(session)) {
            return false;
        }
        session.subscriptions().add(this);
        idleSweeps = 0;
        for (SubscriptionListener listener : subscriptionListeners) {
            server.safely(listener, () -> listener.subscribed(session, this, message));
        }
        server.notifySubscribed(session, this, message);
        return true;
    }

    @Override
    public boolean unsubscribe(ServerSession session) {
        return unsubscribe((ServerSessionImpl) session, null);
    }

    boolean unsubscribe(ServerSessionImpl session, ServerMessage message) {
        if (!subscribers.remove(session)) {
            return false;
        }
        session.subscriptions().remove(this);
        for (SubscriptionListener listener : subscriptionListeners) {
            server.safely(listener, () -> listener.unsubscribed(session, this, message));
        }
        server.notifyUnsubscribed(session, this, message);
        return true;
    }

    @Override
    public void remove() {
        server.removeChannel(this);
    }

    /** Called by the sweeper: whether the channel has been idle long enough to be removed. */
    boolean sweep() {
        boolean idle = !persistent && subscribers.isEmpty() && listeners.isEmpty() && authorizers.isEmpty();
        idleSweeps = idle ? idleSweeps + 1 : 0;
        return idleSweeps > 2;
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
