package io.bayeux.client;

import io.bayeux.api.Bayeux;
import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.client.transport.ClientTransport;
import io.bayeux.client.transport.CookieJar;
import io.bayeux.client.transport.LongPollingTransport;
import io.bayeux.client.transport.WebSocketTransport;
import io.bayeux.common.AbstractClientSession;
import io.bayeux.common.HashMapMessage;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A Bayeux client for the JVM: server to server, tests, bots, the load tool. It negotiates
 * WebSocket and falls back to long-polling when WebSocket cannot be used here, keeps the
 * {@code /meta/connect} loop going, honours the server's advice, reconnects with back-off,
 * re-handshakes when the server forgot the session, and then subscribes again to what the
 * application subscribed.
 *
 * <p>Transport fallback, like the JavaScript client's: a transport reports itself
 * {@linkplain ClientTransport.UnusableException unusable} when it never worked (a WebSocket
 * upgrade refused, unanswered within {@link ClientConfig#upgradeTimeout()}, or cut before
 * anything arrived on it); the client then excludes it and sends the same messages again over
 * the next one, keeping the session. A WebSocket that worked and then dropped is retried, and
 * excluded if that retry fails before it works. Every handshake — {@link #handshake} by the
 * application, or a re-handshake because the server forgot the session or the handshake
 * failed — starts again from the first transport, so WebSocket comes back once it works.
 *
 * <pre>{@code
 * BayeuxClient client = new BayeuxClient("http://localhost:8080/cometd");
 * client.handshake();
 * client.waitFor(Duration.ofSeconds(5), BayeuxClient.State.CONNECTED);
 * client.getChannel("/chat/room").subscribe((channel, message) -> System.out.println(message.getData()));
 * client.getChannel("/chat/room").publish(Map.of("text", "hello"));
 * }</pre>
 *
 * <p>Thread-safe and non-blocking, except the {@code waitFor} helpers, which take a timeout.
 * Listeners and callbacks run on the client's event loop, one of the group's picked once
 * (every connection, timer and reply of one client uses it): they must not block. Replies are
 * handled one response at a time, in the order of each response, and the next
 * {@code /meta/connect} is built only once the reply before it (and its extensions) has been
 * handled. The state and the pending messages are guarded by {@code this}.
 */
public final class BayeuxClient extends AbstractClientSession implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BayeuxClient.class);
    /** How long {@link #close} waits for the client's own event loop to stop, after the disconnect. */
    static final Duration RELEASE_WAIT = Duration.ofSeconds(1);

    /** The states of a client. */
    public enum State {
        UNCONNECTED, HANDSHAKING, REHANDSHAKING, CONNECTING, CONNECTED, DISCONNECTING, DISCONNECTED;

        boolean isHandshaken() {
            return this == CONNECTING || this == CONNECTED || this == UNCONNECTED;
        }
    }

    private final URI url;
    private final ClientConfig config;
    private final EventLoopGroup group;
    /** The one event loop of this client: its connections, its timers, its dispatching. */
    private final EventLoop loop;
    private final boolean ownGroup;
    private final CookieJar cookies = new CookieJar();
    private final TransportChooser transports;
    /** Set by the first {@link #close}: the later ones return at once. */
    private final AtomicBoolean closing = new AtomicBoolean();

    // Guarded by this.
    private State state = State.DISCONNECTED;
    private String clientId;
    private final ReconnectAdvice advice;
    private final PendingMessages pending;
    private Map<String, Object> handshakeFields;
    private boolean connectInFlight;
    private String connectId;
    private ScheduledFuture<?> scheduled;
    private ScheduledFuture<?> connectTimer;
    private boolean resubscribe;
    /**
     * What {@link #terminate} left for {@link #finishTermination}: the messages never sent, or null.
     * Written under the lock; volatile so that {@link #finishTermination}, after every message
     * received, takes the lock only when there is something to finish.
     */
    private volatile List<Message.Mutable> terminated;

    /** A client with the default config, WebSocket then long-polling. */
    public BayeuxClient(String url) {
        this(url, ClientConfig.builder().build());
    }

    /** A client with WebSocket then long-polling, on {@code config}. */
    public BayeuxClient(String url, ClientConfig config) {
        this(url, config, new WebSocketTransport(config), new LongPollingTransport(config));
    }

    /** A client with these transports, in order of preference. */
    public BayeuxClient(String url, ClientConfig config, ClientTransport... transports) {
        this.url = URI.create(Objects.requireNonNull(url, "url"));
        if (this.url.getHost() == null || !List.of("http", "https", "ws", "wss").contains(String.valueOf(this.url.getScheme()).toLowerCase())) {
            throw new IllegalArgumentException("Not an http(s) or ws(s) URL: " + url);
        }
        this.transports = new TransportChooser(List.of(transports));
        this.config = Objects.requireNonNull(config, "config");
        this.ownGroup = config.eventLoopGroup() == null;
        this.group = ownGroup ? new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory()) : config.eventLoopGroup();
        this.loop = group.next();
        this.advice = new ReconnectAdvice(config.backoffIncrement(), config.maxBackoff());
        this.pending = new PendingMessages(config.maxPending());
        for (ClientTransport t : transports) {
            // The transports open their connections on the client's loop (an EventLoop is a group of one).
            t.init(this.url, cookies, loop, new TransportEvents(t, loop, this::dispatch, this::transportFailed));
        }
    }

    public URI getURL() {
        return url;
    }

    public synchronized State getState() {
        return state;
    }

    /** The transport in use (or to be used next). */
    public synchronized String getTransportName() {
        ClientTransport current = transports.current();
        return current == null ? null : current.name();
    }

    /** The value of a cookie the server set, or null. */
    public String getCookie(String name) {
        return cookies.get(name);
    }

    /**
     * Sets a cookie sent from now on with every request and WebSocket upgrade, as if the server
     * had set it (an authentication token, for example).
     */
    public void putCookie(String name, String value) {
        cookies.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
    }

    @Override
    public synchronized String getId() {
        return clientId;
    }

    @Override
    public synchronized boolean isConnected() {
        return state == State.CONNECTED;
    }

    @Override
    public synchronized boolean isHandshook() {
        return clientId != null && state.isHandshaken();
    }

    public synchronized boolean isDisconnected() {
        return state == State.DISCONNECTED;
    }

    /** The names of the transports, in order of preference. */
    public List<String> getAllowedTransports() {
        return transports.names();
    }

    // --- handshake

    @Override
    public void handshake(Map<String, Object> fields, MessageListener callback) {
        // A handshake from a callback of the reply that ended the last session: end that one first.
        finishTermination();
        synchronized (this) {
            if (state != State.DISCONNECTED && state != State.UNCONNECTED) {
                throw new IllegalStateException("Cannot handshake while " + state);
            }
            handshakeFields = fields == null ? Map.of() : Map.copyOf(fields);
            moveTo(State.HANDSHAKING);
            transports.restart();
            advice.resetBackoff();
            clientId = null;
        }
        sendHandshake(callback);
    }

    private void sendHandshake(MessageListener callback) {
        Message.Mutable message = newMessage();
        Map<String, Object> fields;
        synchronized (this) {
            fields = handshakeFields;
        }
        message.putAll(fields);
        message.setChannel(Channel.META_HANDSHAKE);
        message.put(Message.VERSION_FIELD, Bayeux.VERSION);
        message.put(Message.MIN_VERSION_FIELD, Bayeux.VERSION);
        message.put(Message.SUPPORTED_CONNECTION_TYPES_FIELD, getAllowedTransports());
        send(message, callback);
    }

    /**
     * Handles a handshake reply before the application's callbacks see it; returns what to do
     * once they and the extensions have seen it (the first connect), or null.
     */
    private FollowUp handshakeReplied(Message reply) {
        boolean connect = false;
        boolean resubscribeNow = false;
        List<Message.Mutable> flush = List.of();
        synchronized (this) {
            if (state == State.DISCONNECTING || state == State.DISCONNECTED) {
                return null;
            }
            if (reply.isSuccessful()) {
                clientId = reply.getClientId();
                ClientTransport before = transports.current();
                ClientTransport negotiated = transports.negotiate(reply.get(Message.SUPPORTED_CONNECTION_TYPES_FIELD));
                if (negotiated != before && before != null) {
                    before.abort();
                }
                resubscribeNow = state == State.REHANDSHAKING || resubscribe;
                resubscribe = false;
                moveTo(State.CONNECTING);
                advice.resetBackoff();
                advice.take(reply);
                flush = pending.takeAll(clientId);
                connect = true;
            } else if (ReconnectAdvice.isReconnectNone(reply)) {
                terminate(State.DISCONNECTED);
            } else {
                moveTo(State.REHANDSHAKING);
                scheduleLocked(this::rehandshake, advice.nextBackoff());
            }
        }
        if (resubscribeNow) {
            resubscribe();
        }
        sendNow(flush);
        return connect ? new FollowUp(State.CONNECTING, () -> sendConnect(true), -1) : null;
    }

    private void rehandshake() {
        ClientTransport previous;
        synchronized (this) {
            if (state != State.REHANDSHAKING && state != State.HANDSHAKING) {
                return;
            }
            clientId = null;
            resubscribe = true;
            // A new session: the transports excluded for the old one get another chance.
            previous = transports.current();
            if (previous == transports.restart()) {
                previous = null;
            }
        }
        if (previous != null) {
            previous.abort();
        }
        sendHandshake(null);
    }

    // --- connect loop

    private void sendConnect(boolean first) {
        Message.Mutable message = newMessage();
        message.setChannel(Channel.META_CONNECT);
        long delay;
        synchronized (this) {
            if (connectInFlight || !(state == State.CONNECTING || state == State.CONNECTED || state == State.UNCONNECTED)) {
                return;
            }
            connectInFlight = true;
            message.put(Message.CONNECTION_TYPE_FIELD, transports.current().name());
            // Not connected (the first connect, or after a failure): the server answers at once
            // instead of holding it, as CometD's clients ask, so the client knows it is back.
            boolean immediate = first || state != State.CONNECTED;
            if (immediate) {
                message.getAdvice(true).put(Message.TIMEOUT_FIELD, 0);
            }
            message.setId(newMessageId());
            connectId = message.getId();
            delay = (immediate ? 0 : advice.timeout()) + config.maxNetworkDelay().toMillis();
            cancel(connectTimer);
            connectTimer = loop.schedule(() -> connectTimedOut(message.getId()), delay, TimeUnit.MILLISECONDS);
        }
        send(message, null);
    }

    private void connectTimedOut(String id) {
        ClientTransport current;
        synchronized (this) {
            if (!connectInFlight || !id.equals(connectId)) {
                return;
            }
            current = transports.current();
        }
        LOG.debug("No reply to connect {} in time, dropping the connection", id);
        current.abort();
        connectFailed();
    }

    /**
     * Handles a connect reply before the application's listeners see it; returns what to do
     * once they and the extensions have seen it (the next connect, which must carry what the
     * extensions took from this reply, such as the ack extension's batch number), or null.
     */
    private FollowUp connectReplied(Message reply) {
        List<Message.Mutable> flush;
        FollowUp next;
        synchronized (this) {
            if (reply.getId() != null && !reply.getId().equals(connectId)) {
                return null;
            }
            // The late answer to a connect of a session the client already left (held by the
            // server while the client disconnected): not the current session's business.
            if (state == State.HANDSHAKING || state == State.REHANDSHAKING
                    || (reply.getClientId() != null && clientId != null && !reply.getClientId().equals(clientId))) {
                return null;
            }
            connectInFlight = false;
            cancel(connectTimer);
            if (state == State.DISCONNECTING || state == State.DISCONNECTED) {
                return null;
            }
            advice.take(reply);
            if (reply.isSuccessful() && ReconnectAdvice.isReconnectNone(reply)) {
                // The server removed the session and says not to come back.
                terminate(State.DISCONNECTED);
                return null;
            }
            if (!reply.isSuccessful()) {
                Object reconnect = ReconnectAdvice.reconnect(reply);
                if (Message.RECONNECT_NONE_VALUE.equals(reconnect)) {
                    terminate(State.DISCONNECTED);
                    return null;
                } else if (Message.RECONNECT_HANDSHAKE_VALUE.equals(reconnect) || "402::session_unknown".equals(reply.get(Message.ERROR_FIELD))) {
                    moveTo(State.REHANDSHAKING);
                    return new FollowUp(State.REHANDSHAKING, this::rehandshake, advice.interval());
                } else {
                    moveTo(State.UNCONNECTED);
                    return new FollowUp(State.UNCONNECTED, () -> sendConnect(false), advice.nextBackoff());
                }
            }
            moveTo(State.CONNECTED);
            advice.resetBackoff();
            // What the application sent while the connection was down goes now.
            flush = pending.takeAll(clientId);
            next = new FollowUp(State.CONNECTED, () -> sendConnect(false), advice.interval());
        }
        sendNow(flush);
        return next;
    }

    /**
     * What to do after a reply has been handled: {@code task} after {@code delay} ms (at once,
     * on this thread, when negative), provided the client is still in {@code state} (the
     * application may have disconnected, or handshaken again, from a listener).
     */
    private record FollowUp(State state, Runnable task, long delay) {
    }

    private void followUp(FollowUp next) {
        if (next == null) {
            return;
        }
        synchronized (this) {
            if (state != next.state()) {
                return;
            }
            if (next.delay() >= 0) {
                scheduleLocked(next.task(), next.delay());
                return;
            }
        }
        next.task().run();
    }

    private void connectFailed() {
        synchronized (this) {
            connectInFlight = false;
            cancel(connectTimer);
            if (state == State.DISCONNECTING || state == State.DISCONNECTED) {
                return;
            }
            moveTo(State.UNCONNECTED);
            scheduleLocked(() -> sendConnect(false), advice.nextBackoff());
        }
    }

    /** The wait before the next attempt after a failure, in ms. */
    public synchronized long getBackoff() {
        return advice.backoff();
    }

    private void scheduleLocked(Runnable task, long delayMillis) {
        cancel(scheduled);
        scheduled = loop.schedule(task, Math.max(0, delayMillis), TimeUnit.MILLISECONDS);
    }

    private static void cancel(ScheduledFuture<?> future) {
        if (future != null) {
            future.cancel(false);
        }
    }

    // --- disconnect

    @Override
    public void disconnect(MessageListener callback) {
        boolean send;
        synchronized (this) {
            if (state == State.DISCONNECTED || state == State.DISCONNECTING) {
                send = false;
            } else {
                send = clientId != null;
                cancel(scheduled);
                if (send) {
                    moveTo(State.DISCONNECTING);
                    // Whatever happens to the reply, the client is disconnected within the network delay.
                    scheduled = loop.schedule(() -> disconnected(null), config.maxNetworkDelay().toMillis(), TimeUnit.MILLISECONDS);
                } else {
                    // Not handshaken yet: nothing to tell the server.
                    terminate(State.DISCONNECTED);
                }
            }
        }
        if (!send) {
            finishTermination();
            if (callback != null) {
                Message.Mutable reply = newMessage();
                reply.setChannel(Channel.META_DISCONNECT);
                reply.setSuccessful(true);
                callback.onMessage(reply);
            }
            return;
        }
        Message.Mutable message = newMessage();
        message.setChannel(Channel.META_DISCONNECT);
        send(message, callback);
    }

    private void disconnected(Message reply) {
        synchronized (this) {
            if (state == State.DISCONNECTED) {
                return;
            }
            terminate(State.DISCONNECTED);
        }
        if (reply == null) {
            // From the timer: no reply to deliver first.
            finishTermination();
        }
    }

    /**
     * Under the lock: moves to the end state and stops the timers. The caller then calls
     * {@link #finishTermination} without the lock (after delivering the reply that caused
     * this, if any, so that its callback sees that reply and not a failure).
     */
    private void terminate(State end) {
        moveTo(end);
        clientId = null;
        connectInFlight = false;
        cancel(scheduled);
        cancel(connectTimer);
        List<Message.Mutable> dropped = pending.takeAll(clientId);
        if (terminated == null) {
            terminated = dropped;
        } else {
            terminated.addAll(dropped);
        }
    }

    /**
     * Without the lock, after {@link #terminate}: drops the connections and tells every
     * callback still waiting for a reply that none will come. Does nothing the second time.
     */
    private void finishTermination() {
        if (terminated == null) {
            return;
        }
        List<Message.Mutable> dropped;
        synchronized (this) {
            dropped = terminated;
            terminated = null;
        }
        if (dropped == null) {
            return;
        }
        for (ClientTransport t : transports.all()) {
            t.abort();
        }
        dropped.forEach(m -> failCallback(m, "disconnected"));
        failAllCallbacks("disconnected");
    }

    /** Under the lock: the new state, and wakes up the threads in {@link #waitFor}. */
    private void moveTo(State next) {
        state = next;
        notifyAll();
    }

    /**
     * Disconnects and releases what this client owns: its connections and, when it made them,
     * its event loops (never a group given in {@link ClientConfig#eventLoopGroup()}, which
     * stays running). Waits for the disconnect to be answered or to fail, at most
     * {@link ClientConfig#maxNetworkDelay()} (after which the client gives up on the reply), and
     * then for its own event loop to stop, at most a second more; a server that is
     * gone fails the disconnect at once and throws nothing. Called on a thread of the client's
     * event-loop group (from a listener, say), it does not wait, since the reply it would wait
     * for is handled on that thread. Calling it again is harmless; the client cannot be used
     * afterwards.
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        CountDownLatch released = new CountDownLatch(1);
        try {
            disconnect(reply -> releaseOnLoop(released));
        } catch (RejectedExecutionException x) {
            // The group was shut down under the client: nothing left to wait for.
            releaseNow(released);
        }
        if (onGroupThread()) {
            return;
        }
        try {
            if (!released.await(config.maxNetworkDelay().plus(RELEASE_WAIT).toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.debug("{} not released in time", this);
            } else if (ownGroup) {
                group.terminationFuture().await(RELEASE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
    }

    private void releaseOnLoop(CountDownLatch released) {
        try {
            loop.execute(() -> releaseNow(released));
        } catch (RejectedExecutionException x) {
            releaseNow(released);
        }
    }

    private void releaseNow(CountDownLatch released) {
        try {
            release();
        } finally {
            released.countDown();
        }
    }

    /** Whether the calling thread is one of the group's event loops, where {@link #close} must not block. */
    private boolean onGroupThread() {
        for (EventExecutor executor : group) {
            if (executor.inEventLoop()) {
                return true;
            }
        }
        return false;
    }

    private void release() {
        synchronized (this) {
            terminate(State.DISCONNECTED);
        }
        finishTermination();
        for (ClientTransport t : transports.all()) {
            t.terminate();
        }
        if (ownGroup) {
            group.shutdownGracefully(0, RELEASE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    // --- waiting

    /**
     * Waits until the client is in one of {@code states}, at most {@code timeout}.
     *
     * @return whether it got there in time
     */
    public synchronized boolean waitFor(Duration timeout, State... states) throws InterruptedException {
        EnumSet<State> wanted = EnumSet.noneOf(State.class);
        wanted.addAll(List.of(states));
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!wanted.contains(state)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    // --- sending

    @Override
    protected Message.Mutable newMessage() {
        return new HashMapMessage();
    }

    /** The handshake and the connect loop never wait in the application's batch. */
    @Override
    protected boolean joinsBatch(Message message) {
        String channel = message.getChannel();
        return !Channel.META_HANDSHAKE.equals(channel) && !Channel.META_CONNECT.equals(channel);
    }

    @Override
    protected void sendBatch(List<Message.Mutable> messages) {
        List<Message.Mutable> now = new ArrayList<>(messages.size());
        List<Message.Mutable> overflow = List.of();
        synchronized (this) {
            for (Message.Mutable message : messages) {
                String channel = message.getChannel();
                boolean handshake = Channel.META_HANDSHAKE.equals(channel);
                boolean control = handshake || Channel.META_CONNECT.equals(channel) || Channel.META_DISCONNECT.equals(channel);
                if (control || state == State.CONNECTED || state == State.CONNECTING) {
                    if (!handshake && clientId != null) {
                        message.setClientId(clientId);
                    }
                    now.add(message);
                } else if (state == State.DISCONNECTED || state == State.DISCONNECTING || !pending.offer(message)) {
                    if (overflow.isEmpty()) {
                        overflow = new ArrayList<>();
                    }
                    overflow.add(message);
                }
            }
        }
        overflow.forEach(m -> failCallback(m, isDisconnected() ? "not connected" : "too many pending messages"));
        sendNow(now);
    }

    private void sendNow(List<Message.Mutable> messages) {
        if (messages.isEmpty()) {
            return;
        }
        ClientTransport current;
        synchronized (this) {
            current = transports.current();
        }
        if (current == null) {
            messages.forEach(m -> failCallback(m, "not connected"));
            return;
        }
        LOG.trace("Sending {}", messages);
        current.send(messages);
    }

    // --- receiving

    /** On the client's loop: one message, then what it calls for once the extensions and listeners saw it. */
    private void dispatch(Message.Mutable message) {
        String channel = message.getChannel();
        FollowUp next = null;
        if (Channel.META_HANDSHAKE.equals(channel)) {
            next = handshakeReplied(message);
        } else if (Channel.META_CONNECT.equals(channel)) {
            next = connectReplied(message);
        } else if (Channel.META_DISCONNECT.equals(channel) && message.isSuccessful()) {
            disconnected(message);
        }
        try {
            receive(message);
        } finally {
            finishTermination();
            followUp(next);
        }
    }

    private void transportFailed(ClientTransport source, Throwable failure, List<Message.Mutable> messages) {
        boolean handshake = false;
        boolean connect = false;
        boolean fallBack = false;
        for (Message.Mutable message : messages) {
            String channel = message.getChannel();
            handshake |= Channel.META_HANDSHAKE.equals(channel);
            connect |= Channel.META_CONNECT.equals(channel);
        }
        synchronized (this) {
            if (failure instanceof ClientTransport.UnusableException && state != State.DISCONNECTING && state != State.DISCONNECTED
                    && transports.fallBackFrom(source)) {
                ClientTransport transport = transports.current();
                fallBack = true;
                LOG.info("{} unusable ({}), falling back to {}", source.name(), failure.getMessage(), transport.name());
                for (Message.Mutable message : messages) {
                    if (Channel.META_CONNECT.equals(message.getChannel()) && message.getId() != null && message.getId().equals(connectId)) {
                        // The held connect goes again over the new transport, with a fresh wait for its reply.
                        message.put(Message.CONNECTION_TYPE_FIELD, transport.name());
                        cancel(connectTimer);
                        String id = message.getId();
                        long delay = advice.timeout() + config.maxNetworkDelay().toMillis();
                        connectTimer = loop.schedule(() -> connectTimedOut(id), delay, TimeUnit.MILLISECONDS);
                    }
                }
            }
            if (messages.isEmpty() && connectInFlight) {
                // The connection that carried the held connect went away.
                connect = true;
            }
        }
        if (fallBack) {
            // The same messages go again over the next transport, at once.
            sendNow(new ArrayList<>(messages));
            return;
        }
        LOG.debug("Transport failure for {} messages", messages.size(), failure);
        for (Message.Mutable message : messages) {
            String channel = message.getChannel();
            if (!Channel.META_CONNECT.equals(channel) && !Channel.META_HANDSHAKE.equals(channel)) {
                failCallback(message, "transport_failure: " + failure);
            }
        }
        if (handshake) {
            synchronized (this) {
                if (state == State.HANDSHAKING || state == State.REHANDSHAKING) {
                    moveTo(State.REHANDSHAKING);
                    scheduleLocked(this::rehandshake, advice.nextBackoff());
                }
            }
        }
        if (connect) {
            connectFailed();
        }
    }

    @Override
    public String toString() {
        return "BayeuxClient[" + url + ", " + getState() + ", " + getTransportName() + "]";
    }
}
