package io.bayeux.server;

import io.bayeux.api.Channel;
import io.bayeux.api.Promise;
import io.bayeux.api.Session;
import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.common.json.JsonCodec;
import io.bayeux.server.spi.Endpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;

/**
 * A session on the server: state, subscriptions and a queue guarded by one lock; pushed from
 * its connection's event loop in {@link LoopFlusher} rounds, or by its own {@link Flusher} when
 * the endpoint has no loop (or the session has {@code DeQueueListener}s); the held
 * {@code /meta/connect} for endpoints that cannot push.
 *
 * <p>The lock guards the queue, the held connect, the push connection, the lazy timer and the
 * expiry. User code never runs under it, except {@link DeQueueListener}s and
 * {@link QueueMaxedListener}s, which are documented to.
 */
public final class ServerSessionImpl implements ServerSession {
    private static final Logger LOG = LoggerFactory.getLogger(ServerSessionImpl.class);

    enum State { NEW, HANDSHAKEN, CONNECTED, REMOVED }

    /** Queue length past which a session with an unbounded queue counts as one the server is behind with. */
    static final int UNBOUNDED_BEHIND_MARK = 1000;
    /** A session subscribed to nothing (empty: nothing in it to change). */
    private static final ServerChannelImpl[] NO_CHANNELS = new ServerChannelImpl[0];
    private static final VarHandle DIRTY;
    private static final VarHandle BATCH_DEPTH;

    static {
        try {
            DIRTY = MethodHandles.lookup().findVarHandle(ServerSessionImpl.class, "dirty", int.class);
            BATCH_DEPTH = MethodHandles.lookup().findVarHandle(ServerSessionImpl.class, "batchDepth", int.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final BayeuxServerImpl server;
    private final String id;
    private final LocalSessionImpl localSession;
    private final SessionLock lock = new SessionLock();
    /** The pusher for endpoints without an event loop, made when first needed; guarded by lock. */
    private Flusher flusher;
    /** Guarded by lock: whether this session counts in the server's sessions it is behind with. */
    private boolean behind;
    /** 1 while listed in a LoopFlusher's round (see markDirty). */
    private volatile int dirty;
    /** The next session in the LoopFlusher's list while this one is listed (dirty); written only by whoever lists or takes it. */
    ServerSessionImpl nextDirty;
    /** See pushFailure(); racy caching is harmless (any instance does). */
    private Endpoint.PushFailure pushFailure;
    /** Made by the first attribute set: an idle session without attributes has none. */
    private volatile Map<String, Object> attributes;
    /** Copy-on-write, written under this object's monitor (see CopyOnWrite): one shared empty value until the first one. */
    private volatile Listeners listeners = Listeners.NONE;
    /** Copy-on-write under this object's monitor: a bare array (a handful of channels costs no set, and no list around it). */
    private volatile ServerChannelImpl[] subscriptions = NO_CHANNELS;
    /** Nesting of startBatch(); through BATCH_DEPTH. */
    private volatile int batchDepth;

    /** Guarded by lock. */
    private final SessionQueue queue = new SessionQueue(this);
    /** Guarded by lock. */
    private PendingBatch heldConnect;
    /** Guarded by lock: the connection queued messages are pushed to, or null. */
    private ConnectionImpl pushConnection;
    /** Guarded by lock: when the session expires (scheduler time), 0 while a connect is in progress. */
    private long expireAt;
    /** When (scheduler time) a connect reply last went out or a held connect was dropped; under the lock. */
    private long connectEndedAt = Long.MIN_VALUE / 2;
    /** Whether the last reply that carried the queue left messages in it (maxBatchBytes): they go without gathering. */
    private boolean replyLeftMessages;
    /**
     * Under the lock: a connect reply went to a long-polling client that connects again at once,
     * and its next connect has not come yet. The queue waits for that connect, as for a held one,
     * for {@code maxInterval} at most.
     */
    private boolean connectDue;
    /**
     * How many messages a recovery queued past the bound: a replay never overflows the queue it
     * fills, nor does what follows it, until the queue drained. Guarded by the lock.
     */
    private int replayAllowance;

    private volatile State state = State.NEW;
    private volatile String userAgent;
    /** The browser the session belongs to (see {@link BrowserBinding#of}: its id, or a binding), or null when it belongs to none. */
    private volatile Object browser;
    private volatile String transportName;
    /** What the application set (copy-on-write under this object's monitor): one shared value until it sets any. */
    private volatile Settings settings = Settings.NONE;
    private volatile boolean metaConnectDeliveryOnly;

    ServerSessionImpl(BayeuxServerImpl server, String id, LocalSessionImpl localSession) {
        this.server = server;
        this.id = id;
        this.localSession = localSession;
    }

    BayeuxServerImpl server() {
        return server;
    }

    @Override
    public String getId() {
        return id;
    }

    State state() {
        return state;
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
            expireAt = server.scheduler().now() + maxInterval();
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
            queue.clear();
            pushConnection = null;
            wasBehind = clearBehind();
        } finally {
            lock.unlock();
        }
        if (wasBehind) {
            server.behind(false);
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
        pushBeforeRemoval();
        server.removeSession(this, null, false);
    }

    /**
     * A session pushed from its event loop gets what is queued (the {@code /meta/disconnect})
     * written before its removal empties the queue: the loop's round would come too late.
     */
    private void pushBeforeRemoval() {
        ConnectionImpl connection;
        List<List<ServerMessage>> batches;
        lock.lock();
        try {
            connection = pushConnection;
            if (connection == null || connection.loopFlusher() == null || metaConnectDeliveryOnly || queue.isEmpty()) {
                return;
            }
            batches = new ArrayList<>(1);
            // One take when DeQueueListeners shape the queue: it takes what they leave, whole.
            do {
                List<ServerMessage> batch = takeBatch(List.of());
                if (!batch.isEmpty()) {
                    batches.add(batch);
                }
            } while (!queue.hasDeQueueListeners() && !queue.isEmpty());
        } finally {
            lock.unlock();
        }
        Endpoint endpoint = connection.endpoint();
        try {
            endpoint.eventLoop().execute(() -> {
                for (List<ServerMessage> batch : batches) {
                    endpoint.write(batch, Promise.noop());
                }
                endpoint.flush();
            });
        } catch (RuntimeException x) {
            LOG.debug("Cannot push the last messages of {} to {}", this, endpoint, x);
        }
    }

    private void sendDisconnect() {
        if (isHandshook()) {
            ServerMessage.Mutable message = server.newMessage();
            message.setChannel(Channel.META_DISCONNECT);
            message.setSuccessful(true);
            message.setClientId(id);
            server.deliverPrivately(null, this, message);
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
    public void disconnect(String error) {
        Objects.requireNonNull(error, "error");
        server.removeSession(this, null, false, error);
    }

    // --- listeners and extensions

    /**
     * The session's extensions and listeners (those the queue keeps aside), each list
     * copy-on-write: an idle session shares one empty value instead of a field per list.
     */
    private record Listeners(List<Extension> extensions, List<AddedListener> added, List<RemoveListener> removed,
                             List<HeartBeatListener> heartBeat, List<MessageListener> message) {
        static final Listeners NONE = new Listeners(List.of(), List.of(), List.of(), List.of(), List.of());
    }

    @Override
    public synchronized void addExtension(Extension extension) {
        Listeners l = listeners;
        listeners = new Listeners(CopyOnWrite.plus(l.extensions, extension), l.added, l.removed, l.heartBeat, l.message);
    }

    @Override
    public synchronized void removeExtension(Extension extension) {
        Listeners l = listeners;
        listeners = new Listeners(CopyOnWrite.minus(l.extensions, extension), l.added, l.removed, l.heartBeat, l.message);
    }

    @Override
    public List<Extension> getExtensions() {
        return List.copyOf(listeners.extensions);
    }

    List<Extension> extensions() {
        return listeners.extensions;
    }

    @Override
    public synchronized void addListener(ServerSessionListener listener) {
        Listeners l = listeners;
        boolean known = listener instanceof AddedListener || listener instanceof RemoveListener
                || listener instanceof HeartBeatListener || listener instanceof MessageListener;
        if (known) {
            listeners = new Listeners(l.extensions,
                    listener instanceof AddedListener a ? CopyOnWrite.plus(l.added, a) : l.added,
                    listener instanceof RemoveListener r ? CopyOnWrite.plus(l.removed, r) : l.removed,
                    listener instanceof HeartBeatListener h ? CopyOnWrite.plus(l.heartBeat, h) : l.heartBeat,
                    listener instanceof MessageListener m ? CopyOnWrite.plus(l.message, m) : l.message);
        }
        known |= queue.addListener(listener);
        if (!known) {
            throw new IllegalArgumentException("Unknown session listener type: " + listener.getClass().getName());
        }
    }

    @Override
    public synchronized void removeListener(ServerSessionListener listener) {
        Listeners l = listeners;
        listeners = new Listeners(l.extensions, CopyOnWrite.minus(l.added, listener), CopyOnWrite.minus(l.removed, listener),
                CopyOnWrite.minus(l.heartBeat, listener), CopyOnWrite.minus(l.message, listener));
        queue.removeListener(listener);
    }

    List<RemoveListener> removeListeners() {
        return listeners.removed;
    }

    List<AddedListener> addedListeners() {
        return listeners.added;
    }

    /**
     * Whether no application code of this session takes part in a connect reply: its extensions
     * are all {@link NonBlocking}, and no HeartBeatListener or DeQueueListener listens.
     */
    boolean repliesWithoutApplicationCode() {
        Listeners l = listeners;
        return l.heartBeat.isEmpty() && !queue.hasDeQueueListeners() && ExtensionChain.allNonBlocking(l.extensions);
    }

    /** Whether a {@link HeartBeatListener} listens: then a held connect keeps its request as it came. */
    boolean hasHeartBeatListeners() {
        return !listeners.heartBeat.isEmpty();
    }

    /** A connect of this session is held for {@code timeout} ms. */
    void suspended(PendingBatch held, long timeout) {
        List<HeartBeatListener> listeners = this.listeners.heartBeat;
        if (listeners.isEmpty()) {
            return;
        }
        ServerMessage connect = held.connectMessage();
        for (HeartBeatListener listener : listeners) {
            server.safely(listener, () -> listener.onSuspended(this, connect, timeout));
        }
    }

    /** A held connect of this session is answered; {@code timeout}: because its hold expired. */
    void resumed(PendingBatch held, boolean timeout) {
        List<HeartBeatListener> listeners = this.listeners.heartBeat;
        if (listeners.isEmpty()) {
            return;
        }
        ServerMessage connect = held.connectMessage();
        for (HeartBeatListener listener : listeners) {
            server.safely(listener, () -> listener.onResumed(this, connect, timeout));
        }
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
        ServerChannelImpl[] channels = subscriptions;
        for (ServerChannelImpl subscribed : channels) {
            if (subscribed == channel) {
                return;
            }
        }
        ServerChannelImpl[] more = Arrays.copyOf(channels, channels.length + 1);
        more[channels.length] = channel;
        subscriptions = more;
    }

    synchronized void unsubscribed(ServerChannelImpl channel) {
        ServerChannelImpl[] channels = subscriptions;
        for (int i = 0; i < channels.length; i++) {
            if (channels[i] == channel) {
                ServerChannelImpl[] fewer = channels.length == 1 ? NO_CHANNELS : new ServerChannelImpl[channels.length - 1];
                System.arraycopy(channels, 0, fewer, 0, i);
                System.arraycopy(channels, i + 1, fewer, i, channels.length - i - 1);
                subscriptions = fewer;
                return;
            }
        }
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
        this.transportName = name;
    }

    /**
     * What the application set on this session: -1 (or null) for what it did not, which the
     * server's configuration decides.
     */
    private record Settings(long interval, long timeout, long maxInterval, Boolean broadcastToPublisher, int maxQueue) {
        /** Nothing set: maxQueue 0 (never a valid setting) is the server's. */
        static final Settings NONE = new Settings(-1, -1, -1, null, 0);
    }

    /** The session's queue bound: what the application set, or the server's. */
    private int maxQueue() {
        int max = settings.maxQueue;
        return max != 0 ? max : server.config().maxQueue();
    }

    @Override
    public long getInterval() {
        return settings.interval;
    }

    @Override
    public synchronized void setInterval(long interval) {
        Settings s = settings;
        settings = new Settings(interval, s.timeout, s.maxInterval, s.broadcastToPublisher, s.maxQueue);
    }

    @Override
    public long getTimeout() {
        return settings.timeout;
    }

    @Override
    public synchronized void setTimeout(long timeout) {
        Settings s = settings;
        settings = new Settings(s.interval, timeout, s.maxInterval, s.broadcastToPublisher, s.maxQueue);
    }

    @Override
    public long getMaxInterval() {
        return settings.maxInterval;
    }

    @Override
    public synchronized void setMaxInterval(long maxInterval) {
        Settings s = settings;
        settings = new Settings(s.interval, s.timeout, maxInterval, s.broadcastToPublisher, s.maxQueue);
    }

    long interval() {
        long interval = settings.interval;
        return interval >= 0 ? interval : server.config().interval().toMillis();
    }

    long timeout() {
        long timeout = settings.timeout;
        return timeout >= 0 ? timeout : server.config().timeout().toMillis();
    }

    long maxInterval() {
        long maxInterval = settings.maxInterval;
        return maxInterval > 0 ? maxInterval : server.config().maxInterval().toMillis();
    }

    @Override
    public int getMaxQueue() {
        return maxQueue();
    }

    @Override
    public void setMaxQueue(int maxQueue) {
        if (maxQueue < -1 || maxQueue == 0) {
            throw new IllegalArgumentException("maxQueue must be -1 (unbounded) or positive: " + maxQueue);
        }
        synchronized (this) {
            Settings s = settings;
            settings = new Settings(s.interval, s.timeout, s.maxInterval, s.broadcastToPublisher, maxQueue);
        }
    }

    @Override
    public boolean isBroadcastToPublisher() {
        Boolean value = settings.broadcastToPublisher;
        return value != null ? value : server.config().broadcastToPublisher();
    }

    @Override
    public synchronized void setBroadcastToPublisher(boolean broadcastToPublisher) {
        Settings s = settings;
        settings = new Settings(s.interval, s.timeout, s.maxInterval, broadcastToPublisher, s.maxQueue);
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
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    // --- delivery

    @Override
    public void deliver(Session sender, ServerMessage.Mutable message, Promise<Boolean> promise) {
        promise.succeed(server.deliverPrivately(sender, this, message));
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
        ServerMessage toSend = message;
        Listeners listeners = this.listeners;
        List<Extension> extensions = listeners.extensions;
        for (int i = extensions.size() - 1; i >= 0 && toSend != null; i--) {
            Extension extension = extensions.get(i);
            try {
                toSend = extension.send(this, toSend);
            } catch (RuntimeException x) {
                LOG.warn("Extension {} of {} failed on send of {}", extension, this, toSend, x);
            }
        }
        if (toSend == null) {
            return false;
        }
        if (toSend != message && toSend instanceof ServerMessageImpl impl) {
            impl.freeze();
        }
        for (MessageListener listener : listeners.message) {
            try {
                if (!listener.onMessage(this, sender instanceof ServerSession s ? s : null, toSend)) {
                    return false;
                }
            } catch (RuntimeException x) {
                LOG.warn("Message listener {} of {} failed on {}", listener, this, toSend, x);
            }
        }
        boolean lazy = lazyTimeout >= 0;
        if (!enqueue(sender, toSend, lazy, bounded)) {
            return false;
        }
        if (lazy) {
            scheduleLazy(lazyTimeout);
        } else if (dirty == 0) {
            // Listed already: its round has yet to take the queue (it clears the mark first), so it
            // takes this message too.
            wakeUp(false);
        }
        return true;
    }

    private boolean enqueue(ServerSession sender, ServerMessage message, boolean lazy, boolean bounded) {
        lock.lock();
        try {
            if (state == State.REMOVED || !queue.offer(sender, message, lazy, bounded ? queueBound() : -1)) {
                return false;
            }
            if (!bounded) {
                replayAllowance++;
            }
            if (!behind && queue.size() >= behindMark()) {
                ConnectionImpl connection = pushConnection;
                // A reader that keeps reading but has this much waiting: the server is behind, not
                // the reader. Only sessions pushed from their loop whatever the client sends count:
                // not one whose queue waits for its next /meta/connect, which stopping reading would hold.
                if (connection != null && connection.loopFlusher() != null && !connection.endpoint().isStalled()
                        && localSession == null && !metaConnectDeliveryOnly && !queue.hasDeQueueListeners()) {
                    behind = true;
                    server.behind(true);
                }
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock: the session's {@code maxQueue}, or the lower bound of a stalled reader's
     * queue; beside it, what a recovery replayed, until the queue drained.
     */
    private int queueBound() {
        if (replayAllowance > 0 && queue.isEmpty()) {
            replayAllowance = 0;
        }
        int max = maxQueue();
        int stalledMax = server.config().maxStalledQueue();
        if (stalledMax > 0 && (max < 0 || stalledMax < max)) {
            ConnectionImpl connection = pushConnection;
            if (connection != null && connection.endpoint().isStalled()) {
                return stalledMax + replayAllowance;
            }
        }
        return max < 0 ? max : max + replayAllowance;
    }

    /** The queue length at which a reader that keeps reading counts as one the server is behind with. */
    private int behindMark() {
        int max = maxQueue();
        return max > 0 ? Math.max(1, max / 2) : UNBOUNDED_BEHIND_MARK;
    }

    /**
     * Under the lock: this session no longer counts as one the server is behind with.
     *
     * @return whether it did: the caller then calls {@code server.behind(false)} once unlocked
     */
    private boolean clearBehind() {
        boolean was = behind;
        behind = false;
        return was;
    }

    private void scheduleLazy(long lazyTimeout) {
        lock.lock();
        try {
            queue.scheduleLazy(server, lazyTimeout, this::lazyTimeoutExpired);
        } finally {
            lock.unlock();
        }
    }

    /** On the executor: the lazy timer armed as {@code generation} fired. */
    private void lazyTimeoutExpired(long generation) {
        lock.lock();
        try {
            if (!queue.lazyExpired(generation)) {
                return;
            }
        } finally {
            lock.unlock();
        }
        wakeUp(true);
    }

    /**
     * Something should go out: push it, or release the held connect to carry it.
     *
     * @param lazyDue whether lazy messages are due as well
     */
    void wakeUp(boolean lazyDue) {
        if (batchDepth > 0) {
            return;
        }
        PendingBatch held = null;
        long gatherWait = 0;
        LoopFlusher loopFlusher = null;
        Flusher pusher = null;
        lock.lock();
        try {
            if (queue.isEmpty() || !(lazyDue || queue.isDue())) {
                return;
            }
            if (lazyDue) {
                queue.makeDue();
            }
            ConnectionImpl connection = pushConnection;
            if (connection != null && (localSession != null || !metaConnectDeliveryOnly)) {
                // DeQueueListeners are application code: they never run on an event loop.
                loopFlusher = queue.hasDeQueueListeners() ? null : connection.loopFlusher();
                if (loopFlusher == null) {
                    if (flusher == null) {
                        flusher = new Flusher(this);
                    }
                    pusher = flusher;
                }
            } else {
                held = heldConnect;
                gatherWait = held != null ? gatherWait() : 0;
            }
        } finally {
            lock.unlock();
        }
        if (loopFlusher != null) {
            loopFlusher.schedule(this);
        } else if (pusher != null) {
            pusher.flush();
        } else if (gatherWait > 0) {
            held.resumeAfter(gatherWait);
        } else if (held != null) {
            held.resume();
        }
    }

    /** Lists the session in a LoopFlusher's round. @return false when it is listed already */
    boolean markDirty() {
        return DIRTY.compareAndSet(this, 0, 1);
    }

    /** Its round took it off the list: from now on a new message lists it again. */
    void clearDirty() {
        dirty = 0;
    }

    /**
     * On the push connection's event loop: writes what is queued, in frames of at most
     * {@link BayeuxServerConfig#maxBatchBytes()}, while the endpoint is writable (its
     * {@code writable()} brings the session back for the rest).
     *
     * @return the connection written to, to be flushed at the end of the round, or null
     */
    ConnectionImpl pushOnLoop() {
        ConnectionImpl written = null;
        while (true) {
            ConnectionImpl connection;
            List<ServerMessage> batch;
            boolean reroute;
            boolean wasBehind;
            boolean more;
            lock.lock();
            try {
                connection = pushConnection;
                // A connection that replaced the one written to is listed by whoever set it.
                if (connection == null || (written != null && connection != written) || state == State.REMOVED
                        || (localSession == null && metaConnectDeliveryOnly) || !queue.isDue() || !connection.endpoint().isWritable()) {
                    connection = null;
                    batch = List.of();
                    reroute = false;
                } else {
                    reroute = queue.hasDeQueueListeners();
                    batch = reroute ? List.of() : takeBatch(List.of());
                }
                more = queue.isDue();
                // Caught up once the queue went out; a reader that stopped reading is no longer the server's delay.
                wasBehind = (queue.size() < behindMark() || pushConnection == null || pushConnection.endpoint().isStalled()) && clearBehind();
            } finally {
                lock.unlock();
            }
            if (wasBehind) {
                server.behind(false);
            }
            if (connection == null) {
                return written;
            }
            if (reroute) {
                // A DeQueueListener came after the session was listed: the executor's flusher takes over.
                wakeUp(false);
                return written;
            }
            if (batch.isEmpty()) {
                return written;
            }
            Endpoint endpoint = connection.endpoint();
            try {
                endpoint.push(batch, pushFailure());
            } catch (RuntimeException x) {
                LOG.debug("Push of {} messages to {} for {} failed", batch.size(), endpoint, this, x);
                pushFailed(endpoint, batch);
                return written;
            }
            written = connection;
            if (!more) {
                return written;
            }
            // More than one frame carries: the next one, while the connection takes more.
        }
    }

    /** What hears of this session's failed pushes: one per session, made with its first push; loop-confined. */
    private Endpoint.PushFailure pushFailure() {
        Endpoint.PushFailure failure = pushFailure;
        if (failure == null) {
            failure = (endpoint, batch, cause) -> {
                LOG.debug("Push of {} messages to {} for {} failed", batch.size(), endpoint, this, cause);
                pushFailed(endpoint, batch);
            };
            pushFailure = failure;
        }
        return failure;
    }

    /** The endpoint the flusher writes to, or null. */
    Endpoint pushEndpoint() {
        lock.lock();
        try {
            ConnectionImpl connection = pushConnection;
            return connection == null ? null : connection.endpoint();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes queued messages, after the {@link DeQueueListener}s (run under the lock) had their
     * say: as many as one frame or response carries (see {@link BayeuxServerConfig#maxBatchBytes()}).
     *
     * @param replies the replies the messages go out with (a connect reply when they ride with one), possibly none
     */
    List<ServerMessage> takeQueue(List<ServerMessage.Mutable> replies) {
        lock.lock();
        try {
            return takeReplyBatch(replies);
        } finally {
            lock.unlock();
        }
    }

    /**
     * As {@link #takeQueue}, for the reply to a request that holds no {@code /meta/connect}:
     * nothing while a connect of the session is held, or due at once after the reply to the
     * last one. The messages wait for that connect's reply (the session's connect is woken for
     * them as usual): a client that has a reply on each of two connections may read them in
     * either order, and would then see later messages before earlier ones.
     */
    List<ServerMessage> takeQueueBesideConnect(List<ServerMessage.Mutable> replies) {
        lock.lock();
        try {
            return heldConnect != null || awaitsConnect() ? List.of() : takeReplyBatch(replies);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock: whether the client connects again at once after the last connect reply,
     * and has not yet. Not past {@code maxInterval}: a client that keeps sending other requests
     * but no connect gets its messages in their replies again.
     */
    private boolean awaitsConnect() {
        return connectDue && server.scheduler().now() - connectEndedAt < maxInterval();
    }

    /** Whether a {@code /meta/connect} of this session is held now, waiting for messages or its timeout. */
    public boolean isConnectHeld() {
        lock.lock();
        try {
            return heldConnect != null;
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: what a reply carries of the queue, noting whether it left some. */
    private List<ServerMessage> takeReplyBatch(List<ServerMessage.Mutable> replies) {
        List<ServerMessage> batch = takeBatch(replies);
        replyLeftMessages = !queue.isEmpty();
        return batch;
    }

    /** Under the lock: what one frame or response carries of the queue. */
    private List<ServerMessage> takeBatch(List<ServerMessage.Mutable> replies) {
        return queue.take(replies, server.config().maxBatchBytes(), this::encodedSize);
    }

    /** The length of {@code message} as a JSON array of one; encoded once and kept for the write when frozen. */
    private int encodedSize(ServerMessage message) {
        try {
            return server.encodeArray(message).length;
        } catch (JsonCodec.JsonException x) {
            // Its write fails and says so; it weighs nothing meanwhile.
            return 0;
        }
    }

    /** A push failed: the connection is gone; its messages go back to the front of the queue. */
    void pushFailed(Endpoint endpoint, List<ServerMessage> batch) {
        boolean wasBehind = false;
        lock.lock();
        try {
            if (pushConnection != null && pushConnection.endpoint() == endpoint) {
                pushConnection = null;
                wasBehind = clearBehind();
                armExpiry();
            }
            if (state != State.REMOVED) {
                queue.requeue(batch);
            }
        } finally {
            lock.unlock();
        }
        if (wasBehind) {
            server.behind(false);
        }
    }

    // --- connections, held connects and expiry

    /** Messages of this session arrived over {@code connection}; a pushing one becomes the way out. */
    void bind(ConnectionImpl connection) {
        boolean changed;
        lock.lock();
        try {
            changed = state != State.REMOVED && pushConnection != connection;
            if (changed) {
                pushConnection = connection;
            }
        } finally {
            lock.unlock();
        }
        if (changed) {
            connection.bound(this);
            wakeUp(true);
        }
    }

    /** The connection stayed unwritable: its reader does not read; the server is not behind with it. */
    void stalled(ConnectionImpl connection) {
        boolean wasBehind = false;
        lock.lock();
        try {
            if (pushConnection == connection) {
                wasBehind = clearBehind();
            }
        } finally {
            lock.unlock();
        }
        if (wasBehind) {
            server.behind(false);
        }
    }

    /** The connection closed: stop pushing to it. */
    void unbind(ConnectionImpl connection) {
        boolean wasBehind = false;
        lock.lock();
        try {
            if (pushConnection == connection) {
                pushConnection = null;
                wasBehind = clearBehind();
                armExpiry();
            }
        } finally {
            lock.unlock();
        }
        if (wasBehind) {
            server.behind(false);
        }
    }

    /** A message arrived from the client: a connect suspends expiry, anything else extends it. */
    void messageArrived(boolean connect) {
        lock.lock();
        try {
            if (connect) {
                expireAt = 0;
                connectDue = false;
            } else if (expireAt != 0) {
                expireAt = Math.max(expireAt, server.scheduler().now() + maxInterval());
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Holds a connect.
     *
     * @return false when it must not be held (the session went away, or messages are waiting
     *         that only a reply can carry): the caller replies at once
     */
    boolean hold(PendingBatch pending, long timeoutMillis) {
        PendingBatch previous;
        long gatherWait = 0;
        lock.lock();
        try {
            if (state == State.REMOVED) {
                return false;
            }
            boolean replyCarriesQueue = pushConnection == null || metaConnectDeliveryOnly;
            if (replyCarriesQueue && queue.isDue()) {
                gatherWait = gatherWait();
                if (gatherWait <= 0) {
                    return false;
                }
            }
            previous = heldConnect;
            heldConnect = pending;
            expireAt = 0;
        } finally {
            lock.unlock();
        }
        if (previous != null) {
            previous.resume();
        }
        // On the endpoint's event loop when it has one: a held long-poll is a timer there.
        Future<?> timer = pending.connection.endpoint().schedule(pending, timeoutMillis);
        pending.timer(timer != null ? timer : server.scheduleWork(pending::timedOut, timeoutMillis));
        suspended(pending, timeoutMillis);
        if (gatherWait > 0) {
            pending.resumeAfter(gatherWait);
        }
        return true;
    }

    /** The held connect is over (replied or cancelled): forget it. */
    void released(PendingBatch pending) {
        lock.lock();
        try {
            if (heldConnect == pending) {
                heldConnect = null;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock: how long a held connect that should carry queued messages waits still, so
     * that replies are at least {@link BayeuxServerConfig#connectGather()} apart; 0 or less: none.
     * What the last reply could not carry (it was full) goes at once.
     */
    private long gatherWait() {
        long gather = server.connectGatherMillis();
        return gather == 0 || replyLeftMessages ? 0 : connectEndedAt + gather - server.scheduler().now();
    }

    /**
     * A connect reply went out, or a held connect was dropped: expiry starts counting.
     *
     * @param connectsAgain whether the reply went to a long-polling client that connects again at
     *        once (it asked to be held, and the advised interval is 0): until its next connect, the
     *        replies to its other requests leave the queue to that connect
     */
    void connectEnded(boolean connectsAgain) {
        lock.lock();
        try {
            connectEndedAt = server.scheduler().now();
            connectDue = connectsAgain && state != State.REMOVED && interval() == 0;
            if (heldConnect == null) {
                armExpiry();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock. */
    private void armExpiry() {
        if (heldConnect == null && state != State.REMOVED) {
            expireAt = server.scheduler().now() + interval() + maxInterval();
        }
    }

    /** The held connect, released at once; used when the session goes away. */
    PendingBatch takeHeldConnect() {
        lock.lock();
        try {
            PendingBatch held = heldConnect;
            heldConnect = null;
            return held;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the session has expired at scheduler time {@code now}. */
    boolean isExpired(long now) {
        if (localSession != null) {
            return false;
        }
        lock.lock();
        try {
            // Not while the server holds back reading its connection: its next connect may be waiting there.
            return state != State.REMOVED && expireAt != 0 && now > expireAt
                    && (pushConnection == null || !pushConnection.isHeldBack());
        } finally {
            lock.unlock();
        }
    }

    /**
     * What an expiry is to be read with, for the log: how long since the last connect ended,
     * and the state of the connection pushes went to.
     */
    String expiryContext(long now) {
        lock.lock();
        try {
            ConnectionImpl connection = pushConnection;
            String pushTo = connection == null ? "no push connection"
                    : "push connection " + connection.endpoint() + (connection.endpoint().isWritable() ? " writable" : " unwritable")
                    + (connection.endpoint().isStalled() ? ", stalled" : "") + (connection.isHeldBack() ? ", held back" : "");
            return (now - expireAt + maxInterval()) + " ms since its last connect ended, " + queue.size() + " queued, " + pushTo;
        } finally {
            lock.unlock();
        }
    }

    /** Its connection is read again after the server held it back: a whole maxInterval for the connect that waited. */
    void heldBackEnded() {
        lock.lock();
        try {
            if (expireAt != 0) {
                expireAt = Math.max(expireAt, server.scheduler().now() + maxInterval());
            }
        } finally {
            lock.unlock();
        }
    }

    // --- batching

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
            wakeUp(false);
            return true;
        }
        return false;
    }

    @Override
    public String toString() {
        return "ServerSession[" + id + (localSession != null ? ", local" : "") + ", " + state + "]";
    }
}
