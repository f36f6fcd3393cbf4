package io.bayeux.common;

import io.bayeux.api.Channel;
import io.bayeux.api.ChannelId;
import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSession;
import io.bayeux.api.client.ClientSessionChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A channel of an {@link AbstractClientSession}: its listeners, its subscribers and their
 * {@code /meta/subscribe} and {@code /meta/unsubscribe}, its publishing. Once
 * {@linkplain #release() released} it refuses further use with an
 * {@link IllegalStateException}; {@code getChannel} then makes a new one.
 *
 * <p>Thread-safe: listeners and subscribers are copy-on-write lists; adding to them and
 * releasing are guarded by this channel's monitor, so that a channel is never released with
 * a listener or subscriber just added. Listeners are called without a lock held.
 */
final class SessionChannel implements ClientSessionChannel {
    private static final Logger LOG = LoggerFactory.getLogger(SessionChannel.class);

    private final AbstractClientSession session;
    private final ChannelId id;
    private final Map<String, Object> attributes = new ConcurrentHashMap<>();
    private final List<ClientSessionChannelListener> listeners = new CopyOnWriteArrayList<>();
    private final List<MessageListener> subscribers = new CopyOnWriteArrayList<>();
    /** Written under this channel's monitor, with the listeners and subscribers it depends on. */
    private volatile boolean released;

    SessionChannel(AbstractClientSession session, ChannelId id) {
        this.session = session;
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
    public void addListener(ClientSessionChannelListener listener) {
        synchronized (this) {
            throwIfReleased();
            listeners.add(listener);
        }
    }

    @Override
    public void removeListener(ClientSessionChannelListener listener) {
        throwIfReleased();
        listeners.remove(listener);
    }

    private void throwIfReleased() {
        if (released) {
            throw new IllegalStateException("Channel " + id + " has been released: get it again from the session");
        }
    }

    @Override
    public List<ClientSessionChannelListener> getListeners() {
        return List.copyOf(listeners);
    }

    @Override
    public ClientSession getSession() {
        return session;
    }

    @Override
    public void publish(Object data, ClientSession.MessageListener callback) {
        Message.Mutable message = session.newMessage();
        message.setData(data);
        publish(message, callback);
    }

    @Override
    public void publish(Message.Mutable message, ClientSession.MessageListener callback) {
        throwIfReleased();
        if (id.isWild() || id.isMeta()) {
            throw new IllegalArgumentException("Cannot publish to channel " + id);
        }
        message.setChannel(id.getId());
        session.send(message, callback);
    }

    @Override
    public List<MessageListener> getSubscribers() {
        return List.copyOf(subscribers);
    }

    @Override
    public boolean subscribe(MessageListener listener, ClientSession.MessageListener callback) {
        if (id.isMeta()) {
            throw new IllegalArgumentException("Cannot subscribe to meta channel " + id + "; use addListener");
        }
        boolean first;
        synchronized (this) {
            throwIfReleased();
            first = subscribers.isEmpty();
            subscribers.add(listener);
        }
        if (!first) {
            if (callback != null) {
                Message.Mutable reply = session.newMessage();
                reply.setChannel(Channel.META_SUBSCRIBE);
                reply.put(Message.SUBSCRIPTION_FIELD, id.getId());
                reply.setSuccessful(true);
                callback.onMessage(reply);
            }
            return false;
        }
        sendSubscribe(reply -> {
            if (!reply.isSuccessful()) {
                subscribers.remove(listener);
            }
            if (callback != null) {
                callback.onMessage(reply);
            }
        });
        return true;
    }

    boolean hasSubscribers() {
        return !subscribers.isEmpty();
    }

    void sendSubscribe(ClientSession.MessageListener callback) {
        Message.Mutable message = session.newMessage();
        message.setChannel(Channel.META_SUBSCRIBE);
        message.put(Message.SUBSCRIPTION_FIELD, id.getId());
        session.send(message, callback);
    }

    @Override
    public boolean unsubscribe(MessageListener listener, ClientSession.MessageListener callback) {
        boolean last;
        synchronized (this) {
            throwIfReleased();
            if (!subscribers.remove(listener)) {
                return false;
            }
            last = subscribers.isEmpty();
        }
        if (!last) {
            return false;
        }
        Message.Mutable message = session.newMessage();
        message.setChannel(Channel.META_UNSUBSCRIBE);
        message.put(Message.SUBSCRIPTION_FIELD, id.getId());
        session.send(message, callback);
        return true;
    }

    @Override
    public void unsubscribe() {
        throwIfReleased();
        for (MessageListener subscriber : subscribers) {
            unsubscribe(subscriber);
        }
    }

    /**
     * Releases the channel when it has no listeners and no subscribers: it leaves the
     * session, and any further use of it throws {@link IllegalStateException}.
     *
     * @return whether it was released now; false when it has listeners or subscribers, or was released already
     */
    @Override
    public synchronized boolean release() {
        if (released || !listeners.isEmpty() || !subscribers.isEmpty()) {
            return false;
        }
        released = session.forget(this);
        return released;
    }

    @Override
    public boolean isReleased() {
        return released;
    }

    void notifyListeners(Message message, boolean toSubscribers) {
        for (ClientSessionChannelListener listener : listeners) {
            if (listener instanceof MessageListener messageListener) {
                notifyListener(messageListener, message);
            }
        }
        if (toSubscribers) {
            for (MessageListener subscriber : subscribers) {
                notifyListener(subscriber, message);
            }
        }
    }

    private void notifyListener(MessageListener listener, Message message) {
        try {
            listener.onMessage(this, message);
        } catch (RuntimeException x) {
            LOG.warn("Listener {} of {} failed on {}", listener, id, message, x);
        }
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
        return "ClientChannel[" + id + ", subscribers=" + subscribers.size() + ", listeners=" + listeners.size() + "]";
    }
}
