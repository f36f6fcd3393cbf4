package io.bayeux.common;

import io.bayeux.api.Channel;
import io.bayeux.api.ChannelId;
import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSession;
import io.bayeux.api.client.ClientSessionChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every client session shares, whatever carries its messages: its channels (each a
 * {@link SessionChannel}, with its listeners and subscribers), its extensions (a
 * {@link ClientExtensions}), reply callbacks by message id, and batching. Subclasses send
 * messages ({@link #sendBatch}) and feed what arrives to {@link #receive}.
 *
 * <p>Thread-safe: channels and callbacks live in concurrent maps; the batch is guarded by
 * {@code this}. Listeners are never called with a lock held.
 */
public abstract class AbstractClientSession implements ClientSession {
    private static final Logger LOG = LoggerFactory.getLogger(AbstractClientSession.class);

    private final AtomicLong nextMessageId = new AtomicLong();
    private final ClientExtensions extensions = new ClientExtensions();
    private final Map<String, Object> attributes = new ConcurrentHashMap<>();
    private final Map<String, SessionChannel> channels = new ConcurrentHashMap<>();
    private final Map<String, MessageListener> callbacks = new ConcurrentHashMap<>();
    private final Map<String, MessageListener> remoteCalls = new ConcurrentHashMap<>();
    /**
     * Set before the first wildcard channel of this session is made, never cleared: until then a
     * message has no wildcard channel to notify, and {@link #receive} looks none up.
     */
    private volatile boolean wildChannels;
    /** Guarded by {@code this}. */
    private int batchDepth;
    /** Guarded by {@code this}. */
    private List<Message.Mutable> batch = new ArrayList<>();

    /** A new empty message of the subclass's type. */
    protected abstract Message.Mutable newMessage();

    /** Sends messages, already extended, as one unit. */
    protected abstract void sendBatch(List<Message.Mutable> messages);

    /** The next message id of this session. */
    protected String newMessageId() {
        return Long.toString(nextMessageId.incrementAndGet());
    }

    @Override
    public void addExtension(Extension extension) {
        extensions.add(extension);
    }

    @Override
    public void removeExtension(Extension extension) {
        extensions.remove(extension);
    }

    @Override
    public List<Extension> getExtensions() {
        return extensions.list();
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
    public ClientSessionChannel getChannel(String channelName) {
        SessionChannel channel = channels.get(channelName);
        if (channel == null) {
            ChannelId id = ChannelId.of(channelName);
            if (id.isWild()) {
                wildChannels = true;
            }
            channel = channels.computeIfAbsent(channelName, name -> new SessionChannel(this, id));
        }
        return channel;
    }

    /** Called by a channel that releases itself: it leaves this session, unless replaced already. */
    boolean forget(SessionChannel channel) {
        return channels.remove(channel.getId(), channel);
    }

    /** The channels that currently exist on this client. */
    protected Iterable<? extends ClientSessionChannel> channels() {
        return channels.values();
    }

    @Override
    public void remoteCall(String target, Object data, MessageListener callback) {
        String channel = target.startsWith("/") ? Channel.SERVICE + target : Channel.SERVICE + "/" + target;
        Message.Mutable message = newMessage();
        message.setChannel(channel);
        message.setData(data);
        message.setId(newMessageId());
        if (callback != null) {
            remoteCalls.put(message.getId(), callback);
        }
        if (!send(message, null)) {
            MessageListener dropped = remoteCalls.remove(message.getId());
            if (dropped != null) {
                Message.Mutable reply = newMessage();
                reply.setChannel(channel);
                reply.setId(message.getId());
                reply.setSuccessful(false);
                reply.put(Message.ERROR_FIELD, "404::message_deleted");
                notify(dropped, reply);
            }
        }
    }

    /**
     * Sends a message: gives it an id, registers {@code callback} for its reply, and sends it
     * now or with the current batch. Returns false when an extension dropped it (the callback
     * is then told of a failed reply).
     */
    protected boolean send(Message.Mutable message, MessageListener callback) {
        if (message.getId() == null) {
            message.setId(newMessageId());
        }
        if (callback != null) {
            callbacks.put(message.getId(), callback);
        }
        if (!extensions.outgoing(this, message)) {
            failCallback(message, "404::message_deleted");
            return false;
        }
        List<Message.Mutable> toSend = null;
        synchronized (this) {
            if (batchDepth > 0 && joinsBatch(message)) {
                batch.add(message);
            } else {
                toSend = List.of(message);
            }
        }
        if (toSend != null) {
            sendBatch(toSend);
        }
        return true;
    }

    /**
     * Whether {@code message} waits in the current batch, if one is open; by default every
     * message does. A subclass keeps its own protocol messages (such as {@code /meta/connect})
     * out of the application's batches, which may stay open for any time.
     */
    protected boolean joinsBatch(Message message) {
        return true;
    }

    /** Tells the callback of {@code request} (if any) that it failed with {@code error}. */
    protected void failCallback(Message request, String error) {
        MessageListener callback = request.getId() == null ? null : callbacks.remove(request.getId());
        if (callback != null) {
            Message.Mutable reply = newMessage();
            reply.setChannel(request.getChannel());
            reply.setId(request.getId());
            reply.setSuccessful(false);
            reply.put(Message.ERROR_FIELD, error);
            if (request.containsKey(Message.SUBSCRIPTION_FIELD)) {
                reply.put(Message.SUBSCRIPTION_FIELD, request.get(Message.SUBSCRIPTION_FIELD));
            }
            notify(callback, reply);
        }
    }

    @Override
    public synchronized void startBatch() {
        batchDepth++;
    }

    @Override
    public boolean endBatch() {
        List<Message.Mutable> toSend;
        synchronized (this) {
            if (batchDepth == 0) {
                throw new IllegalStateException("endBatch() without startBatch()");
            }
            if (--batchDepth > 0) {
                return false;
            }
            toSend = batch;
            batch = new ArrayList<>();
        }
        if (!toSend.isEmpty()) {
            sendBatch(toSend);
        }
        return true;
    }

    /**
     * Handles a message that arrived for this session: runs the extensions, then tells the
     * reply's callback (by id), the listeners of the channel and of the wildcard channels that
     * match it and, for a broadcast, the subscribers of those channels.
     */
    public void receive(Message.Mutable message) {
        if (!extensions.incoming(this, message)) {
            return;
        }
        String channelName = message.getChannel();
        // A channel of this session was made from a valid name, and knows its wildcards.
        SessionChannel channel = channelName == null ? null : channels.get(channelName);
        if (channel == null && (channelName == null || !ChannelId.isValid(channelName))) {
            LOG.debug("Dropping message without a valid channel: {}", message);
            return;
        }
        String messageId = message.getId();
        if (messageId != null && !remoteCalls.isEmpty() && (message.containsKey(Message.DATA_FIELD) || !message.isSuccessful())) {
            // The answer of a remote call: the service's reply with the call's id, or a failed publish reply.
            MessageListener call = remoteCalls.remove(messageId);
            if (call != null) {
                notify(call, message);
                return;
            }
        }
        boolean reply = message.isMeta() || message.isPublishReply();
        if (reply) {
            MessageListener callback = messageId == null ? null : callbacks.remove(messageId);
            if (callback != null) {
                notify(callback, message);
            }
        }
        if (channel == null) {
            // A listener or callback above may have made it meanwhile.
            channel = channels.get(channelName);
        }
        if (channel != null) {
            channel.notifyListeners(message, !reply);
        }
        if (!wildChannels) {
            return;
        }
        // The listeners of matching wildcard channels see replies too (a /meta/* listener sees
        // every meta reply); subscribers only see broadcasts.
        List<String> wildIds = channel != null ? channel.getChannelId().getWildIds() : ChannelId.of(channelName).getWildIds();
        for (String wildId : wildIds) {
            SessionChannel wild = channels.get(wildId);
            if (wild != null) {
                wild.notifyListeners(message, !reply);
            }
        }
    }

    private void notify(MessageListener callback, Message message) {
        try {
            callback.onMessage(message);
        } catch (RuntimeException x) {
            LOG.warn("Callback {} failed on {}", callback, message, x);
        }
    }

    /**
     * Sends {@code /meta/subscribe} again for every channel that has subscribers: after a
     * re-handshake the server has forgotten them.
     */
    protected void resubscribe() {
        for (SessionChannel channel : channels.values()) {
            if (channel.hasSubscribers()) {
                channel.sendSubscribe(null);
            }
        }
    }

    /** Forgets every reply callback and remote call, telling each that it failed with {@code error}. */
    protected void failAllCallbacks(String error) {
        failAll(callbacks, error);
        failAll(remoteCalls, error);
    }

    private void failAll(Map<String, MessageListener> pending, String error) {
        for (String id : List.copyOf(pending.keySet())) {
            MessageListener callback = pending.remove(id);
            if (callback != null) {
                Message.Mutable reply = newMessage();
                reply.setId(id);
                reply.setSuccessful(false);
                reply.put(Message.ERROR_FIELD, error);
                notify(callback, reply);
            }
        }
    }
}
