package io.bayeux.server.internal;

import io.bayeux.api.Channel;
import io.bayeux.api.Promise;
import io.bayeux.api.Session;
import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.NonBlocking;
import io.bayeux.server.spi.Endpoint;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A session on the server: the {@link ServerSession} API, its state, subscriptions, listeners
 * and settings, and the delivery chain (its extensions and message listeners) that ends in its
 * {@link SessionOutbox}. The outbox (queue, push, back-pressure), the held {@code /meta/connect}
 * ({@link ConnectHold}) and the {@link SessionExpiry} are its parts, made with it.
 *
 * <p>One {@link SessionLock} guards the state transitions and every mutable field of the three
 * parts. User code never runs under it, except {@link DeQueueListener}s and
 * {@link QueueMaxedListener}s, which are documented to. Listeners, subscriptions and settings are
 * copy-on-write values written under this object's monitor and read unlocked.
 */
public final class ServerSessionImpl implements ServerSession {
    enum State { NEW, HANDSHAKEN, CONNECTED, REMOVED }

    /** A session subscribed to nothing (empty: nothing in it to change). */
    private static final ServerChannelImpl[] NO_CHANNELS = new ServerChannelImpl[0];
    private static final VarHandle BATCH_DEPTH;

    static {
        try {
            BATCH_DEPTH = MethodHandles.lookup().findVarHandle(ServerSessionImpl.class, "batchDepth", int.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final BayeuxServerImpl server;
    private final String id;
    private final LocalSessionImpl localSession;
    /** The session's one lock: state transitions, and the outbox's, hold's and expiry's fields. */
    private final SessionLock lock = new SessionLock();
    private final SessionOutbox outbox;
    private final ConnectHold connectHold;
    private final SessionExpiry expiry;
    /** Made by the first attribute set: an idle session without attributes has none. */
    private volatile Map<String, Object> attributes;
    /** Copy-on-write, written under this object's monitor (see CopyOnWrite): one shared empty value until the first one. */
    private volatile SessionListeners listeners = SessionListeners.NONE;
    /** Copy-on-write under this object's monitor: a bare array (a handful of channels costs no set, and no list around it). */
    private volatile ServerChannelImpl[] subscriptions = NO_CHANNELS;
    /** Nesting of startBatch(); through BATCH_DEPTH. */
    private volatile int batchDepth;

    /** Written under the lock, read unlocked. */
    private volatile State state = State.NEW;
    // Written unlocked: the handshake sets the next three (each connect the transport name again), the application the fourth.
    private volatile String userAgent;
    /** The browser the session belongs to (see {@link BrowserBinding#of}: its id, or a binding), or null when it belongs to none. */
    private volatile Object browser;
    private volatile String transportName;
    private volatile boolean metaConnectDeliveryOnly;
    /** What the application set (copy-on-write under this object's monitor): one shared value until it sets any. */
    private volatile SessionSettings settings = SessionSettings.NONE;

    ServerSessionImpl(BayeuxServerImpl server, String id, LocalSessionImpl localSession) {
        this.server = server;
        this.id = id;
        this.localSession = localSession;
        this.outbox = new SessionOutbox(this, lock);
        this.connectHold = new ConnectHold(this, lock);
        this.expiry = new SessionExpiry(this, lock);
    }

    BayeuxServerImpl server() {
        return server;
    }

    /** What goes out to the session: its queue and the way it is pushed. */
    SessionOutbox outbox() {
        return outbox;
    }

    /** The session's held {@code /meta/connect}. */
    ConnectHold connectHold() {
        return connectHold;
    }

    /** When the session expires. */
    SessionExpiry expiry() {
        return expiry;
    }

    @Override
    public String getId() {
        return id;
    }

    @Override
    public boolean isConnected() {
        return state == State.CONNECTED;
    }

    @Override
    public boolean isHandshook() {
        State s = state;
        return s == State.HANDSHAKEN || s == State.CONNECTED;
    }

    boolean isRemoved() {
        return state == State.REMOVED;
    }

    /** Called once the handshake succeeded. */
    void handshaken(Endpoint endpoint) {
        userAgent = endpoint.userAgent();
        browser = BrowserBinding.of(endpoint, server.scheduler().now());
        transportName = endpoint.transportName();
        lock.lock();
        try {
            expiry.start();
            state = localSession != null ? State.CONNECTED : State.HANDSHAKEN;
        } finally {
            lock.unlock();
        }
    }

    /** Marks the first connect. @return whether this was the first */
    boolean firstConnect() {
        lock.lock();
        try {
            if (state == State.HANDSHAKEN) {
                state = State.CONNECTED;
                return true;
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    /** Marks the session removed. @return whether it was not removed before */
    boolean markRemoved() {
        boolean wasBehind;
        lock.lock();
        try {
            if (state == State.REMOVED) {
                return false;
            }
            state = State.REMOVED;
            wasBehind = outbox.removed();
        } finally {
            lock.unlock();
        }
        if (wasBehind) {
            server.backpressure().behind(false);
        }
        return true;
    }

    /**
     * Disconnects from the server side: the client is sent a {@code /meta/disconnect} (best
     * effort: pushed, or carried by the held connect), then the session is removed.
     */
    @Override
    public void disconnect() {
        sendDisconnect();
        outbox.pushBeforeRemoval();
        server.removeSession(this, null, false);
    }

    private void sendDisconnect() {
        if (isHandshook()) {
            ServerMessage.Mutable message = server.newMessage();
            message.setChannel(Channel.META_DISCONNECT);
            message.setSuccessful(true);
            message.setClientId(id);
            server.broadcaster().deliverPrivately(null, this, message);
        }
    }

    /**
     * Removes the session from the server side because of {@code error}, a Bayeux error such
     * as {@code "409::queue_full"}, that its client is told (instead of the {@code /meta/disconnect}
     * that {@link #disconnect()} sends): in the reply to its held
     * {@code /meta/connect}, or else in the reply to its next message (for a while: the
     * reasons of the last {@value SessionRegistry#MAX_REASONS} such removals are kept), with
     * the advice to handshake again.
     */
    @Override
    public void disconnect(String error) {
        Objects.requireNonNull(error, "error");
        server.removeSession(this, null, false, error);
    }

    // --- listeners and extensions

    @Override
    public synchronized void addExtension(Extension extension) {
        listeners = listeners.withExtension(extension);
    }

    @Override
    public synchronized void removeExtension(Extension extension) {
        listeners = listeners.withoutExtension(extension);
    }

    @Override
    public List<Extension> getExtensions() {
        return List.copyOf(listeners.extensions());
    }

    /** The session's extensions and listeners (but the queue's), as they are now. */
    SessionListeners listeners() {
        return listeners;
    }

    @Override
    public synchronized void addListener(ServerSessionListener listener) {
        boolean known = SessionListeners.keeps(listener);
        if (known) {
            listeners = listeners.with(listener);
        }
        known |= outbox.queue().addListener(listener);
        if (!known) {
            throw new IllegalArgumentException("Unknown session listener type: " + listener.getClass().getName());
        }
    }

    @Override
    public synchronized void removeListener(ServerSessionListener listener) {
        listeners = listeners.without(listener);
        outbox.queue().removeListener(listener);
    }

    /**
     * Whether no application code of this session takes part in a connect reply: its extensions
     * are all {@link NonBlocking}, and no HeartBeatListener or DeQueueListener listens.
     */
    boolean repliesWithoutApplicationCode() {
        SessionListeners l = listeners;
        return l.heartBeat().isEmpty() && !outbox.queue().hasDeQueueListeners() && ExtensionChain.allNonBlocking(l.extensions());
    }

    @Override
    public LocalSession getLocalSession() {
        return localSession;
    }

    LocalSessionImpl localSession() {
        return localSession;
    }

    // --- attributes and settings

    @Override
    public void setAttribute(String name, Object value) {
        Map<String, Object> map = attributes;
        if (map == null) {
            synchronized (this) {
                map = attributes;
                if (map == null) {
                    map = new ConcurrentHashMap<>(4);
                    attributes = map;
                }
            }
        }
        map.put(name, value);
    }

    @Override
    public Object getAttribute(String name) {
        Map<String, Object> map = attributes;
        return map == null ? null : map.get(name);
    }

    @Override
    public Set<String> getAttributeNames() {
        Map<String, Object> map = attributes;
        return map == null ? Set.of() : Set.copyOf(map.keySet());
    }

    @Override
    public Object removeAttribute(String name) {
        Map<String, Object> map = attributes;
        return map == null ? null : map.remove(name);
    }

    @Override
    public Set<ServerChannel> getSubscriptions() {
        return Set.<ServerChannel>of(subscriptions);
    }

    /** The channels this session is subscribed to, as they were when asked. */
    List<ServerChannelImpl> subscriptions() {
        return List.of(subscriptions);
    }

    /** The channel counts this session among its subscribers (called once per subscription). */
    synchronized void subscribed(ServerChannelImpl channel) {
        subscriptions = CopyOnWrite.plusOnce(subscriptions, channel);
    }

    synchronized void unsubscribed(ServerChannelImpl channel) {
        subscriptions = CopyOnWrite.minus(subscriptions, channel, NO_CHANNELS);
    }

    @Override
    public String getUserAgent() {
        return userAgent;
    }

    /** The browser the session belongs to, or null when any connection that names it may use it. */
    Object browser() {
        return browser;
    }

    @Override
    public String getTransportName() {
        return transportName;
    }

    void transportName(String name) {
        if (!Objects.equals(transportName, name)) {
            connectHold.forgetAdvice();
        }
        this.transportName = name;
    }

    /**
     * Whether a connect reply should carry the advice: the client has not been advised of the
     * session's settings over this transport yet (a client keeps the last advice it got, as
     * CometD's clients do). When true, they count as advised from now on.
     */
    boolean takeAdvice() {
        return connectHold.takeAdvice(settings);
    }

    /** The client was advised otherwise (a longer interval): the next connect reply advises again. */
    void forgetAdvice() {
        connectHold.forgetAdvice();
    }

    @Override
    public long getInterval() {
        return settings.interval();
    }

    @Override
    public synchronized void setInterval(long interval) {
        settings = settings.withInterval(interval);
    }

    @Override
    public long getTimeout() {
        return settings.timeout();
    }

    @Override
    public synchronized void setTimeout(long timeout) {
        settings = settings.withTimeout(timeout);
    }

    @Override
    public long getMaxInterval() {
        return settings.maxInterval();
    }

    @Override
    public synchronized void setMaxInterval(long maxInterval) {
        settings = settings.withMaxInterval(maxInterval);
    }

    /** The interval in force: the session's, or the server's. */
    long interval() {
        return settings.interval(server.config());
    }

    /** The timeout in force: the session's, or the server's. */
    long timeout() {
        return settings.timeout(server.config());
    }

    /** The maxInterval in force: the session's, or the server's. */
    long maxInterval() {
        return settings.maxInterval(server.config());
    }

    @Override
    public int getMaxQueue() {
        return settings.maxQueue(server.config());
    }

    @Override
    public void setMaxQueue(int maxQueue) {
        if (maxQueue < -1 || maxQueue == 0) {
            throw new IllegalArgumentException("maxQueue must be -1 (unbounded) or positive: " + maxQueue);
        }
        synchronized (this) {
            settings = settings.withMaxQueue(maxQueue);
        }
    }

    @Override
    public boolean isBroadcastToPublisher() {
        return settings.broadcastToPublisher(server.config());
    }

    @Override
    public synchronized void setBroadcastToPublisher(boolean broadcastToPublisher) {
        settings = settings.withBroadcastToPublisher(broadcastToPublisher);
    }

    @Override
    public boolean isMetaConnectDeliveryOnly() {
        return metaConnectDeliveryOnly;
    }

    @Override
    public void setMetaConnectDeliveryOnly(boolean metaConnectDeliveryOnly) {
        this.metaConnectDeliveryOnly = metaConnectDeliveryOnly;
    }

    @Override
    public int getQueueSize() {
        return outbox.size();
    }

    // --- delivery

    @Override
    public void deliver(Session sender, ServerMessage.Mutable message, Promise<Boolean> promise) {
        promise.succeed(server.broadcaster().deliverPrivately(sender, this, message));
    }

    @Override
    public void deliver(Session sender, String channel, Object data, Promise<Boolean> promise) {
        ServerMessage.Mutable message = server.newMessage();
        message.setChannel(channel);
        message.setData(data);
        deliver(sender, message, promise);
    }

    /**
     * Queues a frozen message for this session after its extensions and message listeners:
     * the end of every delivery, broadcast or private.
     *
     * @param lazyTimeout how long the message may wait, or -1 when it is not lazy
     * @return whether it was queued
     */
    boolean deliverShared(ServerSession sender, ServerMessage message, long lazyTimeout) {
        return deliver(sender, message, lazyTimeout, true);
    }

    /**
     * Queues a message replayed from a channel's history, past {@code maxQueue} if need be: the
     * history's size bounds what a recovery adds, and a recovery that overflowed would lose
     * what it recovers. The bound then counts beside what was replayed, until the queue drained.
     */
    boolean deliverReplayed(ServerMessage message) {
        return deliver(null, message, -1, false);
    }

    private boolean deliver(ServerSession sender, ServerMessage message, long lazyTimeout, boolean bounded) {
        if (state == State.REMOVED) {
            return false;
        }
        ServerMessage toSend = listeners.send(this, sender, message);
        return toSend != null && outbox.offer(sender, toSend, lazyTimeout, bounded);
    }

    /** Whether a {@code /meta/connect} of this session is held now, waiting for messages or its timeout. */
    public boolean isConnectHeld() {
        return connectHold.isHeld();
    }

    // --- batching

    /** Whether a batch is open: what it queues goes out when the outermost one ends. */
    boolean isBatching() {
        return batchDepth > 0;
    }

    @Override
    public void startBatch() {
        BATCH_DEPTH.getAndAdd(this, 1);
    }

    @Override
    public boolean endBatch() {
        int depth = (int) BATCH_DEPTH.getAndAdd(this, -1) - 1;
        if (depth < 0) {
            BATCH_DEPTH.getAndAdd(this, 1);
            throw new IllegalStateException("endBatch() without startBatch() on " + this);
        }
        if (depth == 0) {
            outbox.wakeUp(false);
            return true;
        }
        return false;
    }

    @Override
    public String toString() {
        return "ServerSession[" + id + (localSession != null ? ", local" : "") + ", " + state + "]";
    }
}
