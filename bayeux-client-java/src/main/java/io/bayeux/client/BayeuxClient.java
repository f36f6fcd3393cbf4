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
 * handled. The client's monitor guards its state and session id, and what its parts share:
 * the {@link ConnectLoop} (handshake and connect loop), the {@link TransportChooser}, the
 * {@link ReconnectAdvice} and the {@link PendingMessages}.
 */
public final class BayeuxClient extends AbstractClientSession implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BayeuxClient.class);

    /** The states of a client. */
    public enum State {
        UNCONNECTED, HANDSHAKING, REHANDSHAKING, CONNECTING, CONNECTED, DISCONNECTING, DISCONNECTED;

        boolean isHandshaken() {
            return this == CONNECTING || this == CONNECTED || this == UNCONNECTED;
        }
    }

    private final URI url;
    private final ClientConfig config;
    private final ClientLoops loops;
    /** The one event loop of this client: its connections, its timers, its dispatching. */
    private final EventLoop loop;
    private final CookieJar cookies = new CookieJar();
    private final TransportChooser transports;
    private final ReconnectAdvice advice;
    private final PendingMessages pending;
    private final ConnectLoop connects;
    /** Set by the first {@link #close}: the later ones return at once. */
    private final AtomicBoolean closing = new AtomicBoolean();

    // Guarded by this.
    private State state = State.DISCONNECTED;
    private String clientId;
    /** The next retry (handshake or connect), or the disconnect's deadline. */
    private ScheduledFuture<?> scheduled;
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
        this.loops = new ClientLoops(config.eventLoopGroup());
        this.loop = loops.loop();
        this.advice = new ReconnectAdvice(config.backoffIncrement(), config.maxBackoff());
        this.pending = new PendingMessages(config.maxPending());
        this.connects = new ConnectLoop(this, this.transports, advice, pending, loop, config);
        for (ClientTransport t : transports) {
            // The transports open their connections on the client's loop (an EventLoop is a group of one).
            t.init(this.url, cookies, loop, new TransportEvents(t, loop, this::dispatch, connects::transportFailed));
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

    /** The wait before the next attempt after a failure, in ms. */
    public synchronized long getBackoff() {
        return advice.backoff();
    }

    // --- handshake and disconnect

    @Override
    public void handshake(Map<String, Object> fields, MessageListener callback) {
        // A handshake from a callback of the reply that ended the last session: end that one first.
        finishTermination();
        connects.handshake(fields, callback);
    }

    /** Under the lock: {@code task} after {@code delayMillis}, replacing what was scheduled (a retry, or the disconnect's deadline). */
    void scheduleLocked(Runnable task, long delayMillis) {
        ConnectLoop.cancel(scheduled);
        scheduled = loop.schedule(task, Math.max(0, delayMillis), TimeUnit.MILLISECONDS);
    }

    @Override
    public void disconnect(MessageListener callback) {
        boolean send;
        synchronized (this) {
            if (state == State.DISCONNECTED || state == State.DISCONNECTING) {
                send = false;
            } else {
                send = clientId != null;
                ConnectLoop.cancel(scheduled);
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
    void terminate(State end) {
        moveTo(end);
        clientId = null;
        connects.stopLocked();
        ConnectLoop.cancel(scheduled);
        List<Message.Mutable> dropped = pending.takeAll(null);
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
    void moveTo(State next) {
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
        Runnable release = () -> {
            try {
                release();
            } finally {
                released.countDown();
            }
        };
        try {
            disconnect(reply -> loops.executeOrRun(release));
        } catch (RejectedExecutionException x) {
            // The group was shut down under the client: nothing left to wait for.
            release.run();
        }
        if (loops.inGroup()) {
            return;
        }
        try {
            if (!released.await(config.maxNetworkDelay().plus(ClientLoops.SHUTDOWN_WAIT).toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.debug("{} not released in time", this);
            } else {
                loops.awaitShutdown();
            }
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
    }

    private void release() {
        synchronized (this) {
            terminate(State.DISCONNECTED);
        }
        finishTermination();
        for (ClientTransport t : transports.all()) {
            t.terminate();
        }
        loops.shutdown();
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

    /** Under the lock: the state. */
    State stateLocked() {
        return state;
    }

    /** Under the lock: the session's id, or null. */
    String clientIdLocked() {
        return clientId;
    }

    /** Under the lock: a new session's id, or null when it is over. */
    void clientIdLocked(String id) {
        clientId = id;
    }

    /** For the {@link ConnectLoop}: {@link #send}, which it cannot reach across packages. */
    void sendMessage(Message.Mutable message, MessageListener callback) {
        send(message, callback);
    }

    /** For the {@link ConnectLoop}: {@link #newMessageId}. */
    String nextMessageId() {
        return newMessageId();
    }

    /** For the {@link ConnectLoop}: {@link #failCallback}. */
    void failMessage(Message message, String error) {
        failCallback(message, error);
    }

    /** For the {@link ConnectLoop}: {@link #resubscribe}. */
    void subscribeAgain() {
        resubscribe();
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

    /** Without the lock: sends {@code messages} over the current transport, or fails them when there is none. */
    void sendNow(List<Message.Mutable> messages) {
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
        ConnectLoop.FollowUp next = null;
        if (Channel.META_HANDSHAKE.equals(channel)) {
            next = connects.handshakeReplied(message);
        } else if (Channel.META_CONNECT.equals(channel)) {
            next = connects.connectReplied(message);
        } else if (Channel.META_DISCONNECT.equals(channel) && message.isSuccessful()) {
            disconnected(message);
        }
        try {
            receive(message);
        } finally {
            finishTermination();
            connects.followUp(next);
        }
    }

    @Override
    public String toString() {
        return "BayeuxClient[" + url + ", " + getState() + ", " + getTransportName() + "]";
    }
}
