package io.bayeux.server.internal;

import io.bayeux.api.ChannelId;
import io.bayeux.api.server.Authorizer;
import io.bayeux.api.server.BayeuxContext;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ConfigurableServerChannel;
import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.MarkedReference;
import io.bayeux.api.server.SecurityPolicy;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.common.json.JsonCodec;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.DefaultSecurityPolicy;
import io.bayeux.server.NonBlocking;
import io.bayeux.server.Scheduler;
import io.bayeux.server.spi.Connection;
import io.bayeux.server.spi.Endpoint;
import io.bayeux.server.spi.ServerObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

/**
 * The transport-independent Bayeux server: it takes batches of messages from transports
 * ({@link #newConnection(Endpoint)}), applies the protocol, and routes published messages to
 * the subscribers' queues. It owns the registries of channels and sessions and the timers, and
 * hands each job to its part: the {@link Dispatcher} handles one incoming message, the
 * {@link Broadcaster} publishes and delivers, {@link Backpressure} tells the transports when
 * deliveries fall behind, {@link ServerListeners} tells the application, {@link JsonArrays}
 * frames what goes out.
 *
 * <p>Thread-safe, with no global lock on the publish path: channels and sessions live in
 * concurrent maps, each session guards its own queue. Listeners run on the thread that
 * handles the message (transports run batches on their application executor), never under a
 * server lock.
 */
public final class BayeuxServerImpl implements BayeuxServer {
    private static final Logger LOG = LoggerFactory.getLogger(BayeuxServerImpl.class);

    private final BayeuxServerConfig config;
    private final Scheduler scheduler;
    /** See {@link #afterAccepts(Executor)}. */
    private volatile Executor afterAccepts = Runnable::run;
    private final long connectGatherMillis;
    private final long connectGatherSlackMillis;
    private final boolean ownScheduler;
    /** Where timer work runs: never on the scheduler's thread. */
    private final Executor timerExecutor;
    /** The executor this server made, and shuts down, or null. */
    private final ExecutorService ownExecutor;
    private final JsonCodec codec;
    private final JsonArrays jsonArrays;
    private final ChannelRegistry channels = new ChannelRegistry();
    private final Map<Executor, LoopFlusher> loopFlushers = new ConcurrentHashMap<>();
    private final Backpressure backpressure = new Backpressure();
    private final SessionRegistry sessions = new SessionRegistry();
    private final ExtensionChain extensions = new ExtensionChain(this);
    private final ServerListeners listeners = new ServerListeners(this);
    private final Broadcaster broadcaster = new Broadcaster(this, channels);
    private final Dispatcher dispatcher;
    private final Sweeper sweeper;
    private final BrowserHolds browserHolds = new BrowserHolds();
    private final Histories histories = new Histories(this);
    private volatile SecurityPolicy securityPolicy = new DefaultSecurityPolicy();
    /** What hears this server's events for metrics, or null (the default): see {@link ServerObserver}. */
    private volatile ServerObserver observer;
    private final ServerCensus census = new ServerCensus(sessions, channels);

    public BayeuxServerImpl() {
        this(BayeuxServerConfig.defaults());
    }

    public BayeuxServerImpl(BayeuxServerConfig config) {
        this(config, null);
    }

    /**
     * A server whose timer work runs on {@code executor} (the transport's application
     * executor) unless the config names one; with neither, on virtual threads of its own.
     */
    public BayeuxServerImpl(BayeuxServerConfig config, Executor executor) {
        this.config = Objects.requireNonNull(config, "config");
        this.ownScheduler = config.scheduler() == null;
        this.scheduler = ownScheduler ? Scheduler.newSystemScheduler("bayeux-scheduler") : config.scheduler();
        this.connectGatherMillis = config.connectGather().toMillis();
        this.connectGatherSlackMillis = Math.clamp(connectGatherMillis / 20, 1, 10);
        Executor chosen = config.executor() != null ? config.executor() : executor;
        this.ownExecutor = chosen == null ? Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("bayeux-timer-", 0).factory()) : null;
        this.timerExecutor = chosen != null ? chosen : ownExecutor;
        this.codec = config.jsonCodec();
        this.jsonArrays = new JsonArrays(codec);
        this.dispatcher = new Dispatcher(this, channels, sessions);
        dispatcher.createMetaChannels();
        this.sweeper = new Sweeper(this);
    }

    /** Starts sweeping expired sessions and idle channels. */
    public BayeuxServerImpl start() {
        sweeper.start();
        return this;
    }

    /**
     * Stops the server: held connects are answered, every session is removed, the sweeper
     * stops, and the scheduler too when the server made it.
     */
    public void stop() {
        sweeper.stop();
        for (ServerSessionImpl session : List.copyOf(sessions.all())) {
            removeSession(session, null, false);
        }
        if (ownScheduler) {
            scheduler.shutdown();
        }
        if (ownExecutor != null) {
            ownExecutor.shutdown();
        }
    }

    /**
     * Runs the work a timer started on the executor, so that a slow application listener
     * holds up nothing else the scheduler has to start. When the executor refuses it
     * (overloaded or stopped), it runs in place: late beats lost.
     */
    void runTimerWork(Runnable work) {
        try {
            timerExecutor.execute(work);
        } catch (RejectedExecutionException x) {
            LOG.warn("Executor {} refused timer work, running it on the scheduler's thread", timerExecutor);
            work.run();
        }
    }

    /**
     * On an endpoint's event loop, a held connect's timer fired: the reply is made there when no
     * application code takes part in it (see {@link NonBlocking}), on the executor otherwise.
     */
    void completeFromLoop(ServerSessionImpl session, Runnable completion) {
        if (extensions.isNonBlocking() && session.repliesWithoutApplicationCode()) {
            completion.run();
        } else {
            runTimerWork(completion);
        }
    }

    /**
     * Whether a transport may handle {@code batch} on an event loop, its replies too (see
     * {@link Dispatcher#handlesOnLoop}): it holds {@code /meta/connect}s only, whose replies
     * involve no application code. True for the moment it is given.
     */
    public boolean handlesOnLoop(List<ServerMessage.Mutable> batch) {
        return dispatcher.handlesOnLoop(batch);
    }

    /** Schedules {@code work} to run on the executor after {@code delayMillis}. */
    Scheduler.Cancellable scheduleWork(Runnable work, long delayMillis) {
        return scheduler.schedule(() -> runTimerWork(work), delayMillis);
    }

    /** {@link BayeuxServerConfig#connectGather()} in milliseconds. */
    long connectGatherMillis() {
        return connectGatherMillis;
    }

    /**
     * How late the end of a gather time may come: a twentieth of it, from 1 to 10 ms. The ends
     * due within one such slot are answered together, on one wake-up of their event loop
     * (see {@link io.bayeux.server.spi.Endpoint#scheduleGrouped}).
     */
    long connectGatherSlackMillis() {
        return connectGatherSlackMillis;
    }

    public BayeuxServerConfig config() {
        return config;
    }

    public Scheduler scheduler() {
        return scheduler;
    }

    /**
     * Where the core runs what must come after every connection that reached the server so far
     * has been accepted: the transport's accept loop, installed when it starts listening (see
     * {@link BrowserBinding}); {@code Runnable::run} (the default) when no transport accepts
     * connections. The executor must run every task it takes, even while stopping.
     */
    public void afterAccepts(Executor afterAccepts) {
        this.afterAccepts = Objects.requireNonNull(afterAccepts, "afterAccepts");
    }

    Executor afterAccepts() {
        return afterAccepts;
    }

    public JsonCodec jsonCodec() {
        return codec;
    }

    @Override
    public List<String> getAllowedTransports() {
        return config.allowedTransports();
    }

    /** Handles incoming messages, one at a time. */
    Dispatcher dispatcher() {
        return dispatcher;
    }

    @Override
    public BayeuxContext getContext() {
        return dispatcher.context();
    }

    /** Counts the held long-polling connects of each browser. */
    BrowserHolds browserHolds() {
        return browserHolds;
    }

    /** Publishing and delivering to sessions. */
    Broadcaster broadcaster() {
        return broadcaster;
    }

    /** The histories of this server's channels, in memory or kept by an engine. */
    public Histories histories() {
        return histories;
    }

    // --- observation

    /**
     * Installs the observer that hears this server's events (see {@link ServerObserver}); with
     * {@code null}, removes it. Events already under way when it changes may reach the one before.
     *
     * @throws IllegalStateException when another observer is installed: remove it first
     */
    public synchronized void observe(ServerObserver observer) {
        ServerObserver current = this.observer;
        if (observer != null && current != null && current != observer) {
            throw new IllegalStateException("Observed already by " + current + ", cannot install " + observer);
        }
        this.observer = observer;
    }

    /** The installed observer, or null (the default): callers check for null before reporting. */
    public ServerObserver observer() {
        return observer;
    }

    /** Counts of this server's sessions, connects, channels and subscriptions, for metrics. */
    public ServerCensus census() {
        return census;
    }

    // --- back-pressure

    /**
     * Whether the server is behind delivering (see {@link Backpressure}): transports then stop
     * reading the connections that publish, so that TCP slows the publishers down.
     */
    public boolean isBehind() {
        return backpressure.isBehind();
    }

    /** Runs {@code task} once the server is no longer {@linkplain #isBehind() behind}: at once when it is not. */
    public void whenCaughtUp(Runnable task) {
        backpressure.whenCaughtUp(task);
    }

    /** Whether deliveries are behind, and what waits for them to catch up. */
    Backpressure backpressure() {
        return backpressure;
    }

    // --- the transport side

    /** The flusher that pushes from {@code loop}, one per event loop. */
    LoopFlusher loopFlusher(Executor loop) {
        return loopFlushers.computeIfAbsent(loop, LoopFlusher::new);
    }

    /** Makes the core's side of a new network connection. */
    public Connection newConnection(Endpoint endpoint) {
        return new ConnectionImpl(this, Objects.requireNonNull(endpoint, "endpoint"));
    }

    /** Messages as the JSON arrays a response or frame carries. */
    JsonArrays jsonArrays() {
        return jsonArrays;
    }

    /** Parses a request body or frame into messages. */
    public List<ServerMessage.Mutable> decode(byte[] json) throws JsonCodec.JsonException {
        return codec.decode(json, ServerMessageImpl::new);
    }

    /**
     * Writes messages as one JSON array. A frozen message (a broadcast) contributes the bytes
     * computed the first time it was written, shared by every recipient: the result may be
     * those very bytes, so callers must not modify it.
     */
    public byte[] encode(List<? extends ServerMessage> messages) throws JsonCodec.JsonException {
        return jsonArrays.encode(messages);
    }

    /**
     * One message as a JSON array of one, {@code [ {...} ]}; a frozen message's bytes are
     * computed once and shared: the caller must not modify them.
     */
    public byte[] encodeArray(ServerMessage message) throws JsonCodec.JsonException {
        return jsonArrays.encodeArray(message);
    }

    // --- authorization and extensions

    /** Decides an operation on a channel: see {@link Authorization}. */
    Authorizer.Result authorize(Authorizer.Operation operation, ChannelId channelId, ServerChannel channel,
                                ServerSessionImpl session, ServerMessage message) {
        return Authorization.decide(this, operation, channelId, channel, session, message);
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

    ExtensionChain extensionChain() {
        return extensions;
    }

    @Override
    public void addListener(BayeuxServerListener listener) {
        listeners.add(listener);
    }

    @Override
    public void removeListener(BayeuxServerListener listener) {
        listeners.remove(listener);
    }

    /** The application's server listeners, and the events they hear. */
    ServerListeners listeners() {
        return listeners;
    }

    /** Runs a listener call; a throwing listener is logged with its identity and skipped. */
    void safely(Object listener, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException x) {
            logListenerFailure(listener, x);
        }
    }

    void logListenerFailure(Object listener, RuntimeException failure) {
        LOG.warn("{} failed", listener, failure);
    }

    // --- channels

    @Override
    public ServerChannel getChannel(String channelId) {
        return channels.get(channelId);
    }

    ServerChannelImpl channel(String channelId) {
        return channels.get(channelId);
    }

    @Override
    public Collection<ServerChannel> getChannels() {
        return List.copyOf(channels.all());
    }

    Collection<ServerChannelImpl> channels() {
        return channels.all();
    }

    /**
     * Creates a channel unless it exists. The initializers (after the {@link ChannelListener}s'
     * {@code configureChannel}) run exactly once, on the channel that wins, before anyone can
     * see it: concurrent callers for the same name wait for that initialization (at most
     * {@value ChannelRegistry#CREATION_WAIT_SECONDS} s), lookups see no channel until it is complete. An
     * initializer may call this again for the channel it initializes: it gets that channel.
     * Finding an existing channel resets its idle count, so the sweeper keeps it a while longer.
     */
    @Override
    public MarkedReference<ServerChannel> createChannelIfAbsent(String channelName, ConfigurableServerChannel.Initializer... initializers) {
        if (channelName == null) {
            throw new IllegalArgumentException("Invalid channel name: null");
        }
        ChannelRegistry.Created result = channels.createIfAbsent(channelName, id -> new ServerChannelImpl(this, id), channel -> {
            listeners.configureChannel(channel);
            for (ConfigurableServerChannel.Initializer initializer : initializers) {
                safely(initializer, () -> initializer.configureChannel(channel));
            }
        });
        if (result.created()) {
            listeners.channelAdded(result.channel());
        }
        return new MarkedReference<>(result.channel(), result.created());
    }

    /** Takes a swept channel out of the registry; called under its lifecycle lock. */
    boolean unregister(ServerChannelImpl channel) {
        return channels.remove(channel);
    }

    /** Removes a channel unless it is gone already: see {@link #channelRemoved}. */
    void removeChannel(ServerChannelImpl channel) {
        if (channels.remove(channel)) {
            channelRemoved(channel);
        }
    }

    /** A channel left the registry (removed, or swept): its subscribers (none, when swept) go, its listeners are told. */
    void channelRemoved(ServerChannelImpl channel) {
        for (ServerSessionImpl subscriber : List.copyOf(channel.subscribers())) {
            channel.unsubscribe(subscriber, null);
        }
        listeners.channelRemoved(channel.getId());
    }

    // --- sessions

    @Override
    public ServerSession getSession(String clientId) {
        return sessions.get(clientId);
    }

    ServerSessionImpl sessionImpl(String clientId) {
        return sessions.get(clientId);
    }

    @Override
    public Collection<ServerSession> getSessions() {
        return List.copyOf(sessions.all());
    }

    Sweeper sweeper() {
        return sweeper;
    }

    Collection<ServerSessionImpl> sessions() {
        return sessions.all();
    }

    /** The sessions' registry, for tests of what it keeps. */
    SessionRegistry sessionRegistry() {
        return sessions;
    }

    /** The sweeper's: the registries that grew with a burst of sessions or connections give back their tables once it left. */
    void compactRegistries() {
        sessions.compact();
        dispatcher.compact();
    }

    void addSession(ServerSessionImpl session, ServerMessage message) {
        sessions.add(session);
        listeners.sessionAdded(session, message);
    }

    @Override
    public boolean removeSession(ServerSession session) {
        return session instanceof ServerSessionImpl impl && removeSession(impl, null, false);
    }

    /**
     * Removes a session: unsubscribes it, drops its queue, answers its held connect (advising
     * it not to reconnect) and tells the remove and session listeners.
     */
    boolean removeSession(ServerSessionImpl session, ServerMessage message, boolean timeout) {
        return removeSession(session, message, timeout, null);
    }

    /**
     * Removes a session, as {@link #removeSession(ServerSessionImpl, ServerMessage, boolean)}; with
     * an {@code error}, the client is told it: in the held connect's reply (advising a new
     * handshake), or, when none is held, in the reply to its next message.
     */
    boolean removeSession(ServerSessionImpl session, ServerMessage message, boolean timeout, String error) {
        // Remembered before the session is seen removed: a message that finds it so gets the reason.
        boolean remembered = error != null && sessions.rememberReason(session.getId(), error, session.browser());
        if (!session.markRemoved()) {
            if (remembered) {
                sessions.forgetReason(session.getId(), error);
            }
            return false;
        }
        // Taken once the removal is marked, under the lock under which a connect is held only if
        // the session is not removed: a connect is either held before, and answered here, or refused.
        PendingBatch held = session.connectHold().take();
        sessions.remove(session);
        // Answered here only if a message or its timeout is not answering it already: then its
        // reply may be made already, and the reason waits for the client's next message.
        if (held != null && held.resume(exchanges -> {
            for (Exchange exchange : exchanges) {
                if (exchange.connect) {
                    if (error != null) {
                        exchange.error(error);
                        Advice.handshake(exchange.reply);
                    } else {
                        Advice.none(exchange.reply);
                    }
                }
            }
        }) && remembered) {
            // Told in the held connect's reply.
            sessions.forgetReason(session.getId(), error);
        }
        for (ServerChannelImpl channel : session.subscriptions()) {
            channel.unsubscribe(session, message);
        }
        ServerObserver observing = observer;
        if (observing != null) {
            observing.sessionRemoved(session.getTransportName(), causeOf(message, timeout, error));
        }
        listeners.sessionRemoved(session, message, timeout);
        if (session.localSession() != null) {
            session.localSession().removed();
        }
        return true;
    }

    private static ServerObserver.DisconnectCause causeOf(ServerMessage message, boolean timeout, String error) {
        if (timeout) {
            return ServerObserver.DisconnectCause.EXPIRY;
        }
        if (error != null) {
            return QueueOverflowPolicy.QUEUE_FULL.equals(error) ? ServerObserver.DisconnectCause.OVERFLOW : ServerObserver.DisconnectCause.ERROR;
        }
        return message != null ? ServerObserver.DisconnectCause.CLIENT : ServerObserver.DisconnectCause.SERVER;
    }

    @Override
    public LocalSession newLocalSession(String idHint) {
        return new LocalSessionImpl(this, idHint);
    }

    @Override
    public ServerMessage.Mutable newMessage() {
        return new ServerMessageImpl();
    }

    @Override
    public SecurityPolicy getSecurityPolicy() {
        return securityPolicy;
    }

    @Override
    public void setSecurityPolicy(SecurityPolicy securityPolicy) {
        this.securityPolicy = Objects.requireNonNull(securityPolicy, "securityPolicy");
    }

    @Override
    public String toString() {
        return "BayeuxServer[sessions=" + sessions.size() + ", " + config + "]";
    }
}
