package io.bayeux.server;

import io.bayeux.api.Bayeux;
import io.bayeux.api.Channel;
import io.bayeux.api.ChannelId;
import io.bayeux.api.Message;
import io.bayeux.api.Session;
import io.bayeux.api.server.Authorizer;
import io.bayeux.api.server.HistoryPolicy;
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
import io.bayeux.server.spi.Connection;
import io.bayeux.server.spi.Endpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The transport-independent Bayeux server: it takes batches of messages from transports
 * ({@link #newConnection(Endpoint)}), applies the protocol, and routes published messages to
 * the subscribers' queues.
 *
 * <p>Thread-safe, with no global lock on the publish path: channels and sessions live in
 * concurrent maps, each session guards its own queue. Listeners run on the thread that
 * handles the message (transports run batches on their application executor), never under a
 * server lock.
 */
public final class BayeuxServerImpl implements BayeuxServer {
    private static final Logger LOG = LoggerFactory.getLogger(BayeuxServerImpl.class);
    private static final byte[] EMPTY_ARRAY = {'[', ']'};

    private final BayeuxServerConfig config;
    private final Scheduler scheduler;
    private final long connectGatherMillis;
    private final long connectGatherSlackMillis;
    private final boolean ownScheduler;
    /** Where timer work runs: never on the scheduler's thread. */
    private final Executor timerExecutor;
    /** The executor this server made, and shuts down, or null. */
    private final ExecutorService ownExecutor;
    private final JsonCodec codec;
    private final ChannelRegistry channels = new ChannelRegistry();
    private final Map<Executor, LoopFlusher> loopFlushers = new ConcurrentHashMap<>();
    /** Sessions that keep reading but have half their queue or more waiting (see isBehind). */
    private final AtomicInteger behindSessions = new AtomicInteger();
    private final Queue<Runnable> caughtUpTasks = new ConcurrentLinkedQueue<>();
    private final SessionRegistry sessions = new SessionRegistry();
    private final ExtensionChain extensions = new ExtensionChain(this);
    private final List<SessionListener> sessionListeners = new CopyOnWriteArrayList<>();
    private final List<ChannelListener> channelListeners = new CopyOnWriteArrayList<>();
    private final List<SubscriptionListener> subscriptionListeners = new CopyOnWriteArrayList<>();
    private final Map<String, MetaHandler> metaHandlers;
    private final Sweeper sweeper;
    private final BrowserHolds browserHolds = new BrowserHolds();
    private final Histories histories = new Histories(this);
    private volatile SecurityPolicy securityPolicy = new DefaultSecurityPolicy();
    /** The context of the message being handled on each thread: one per server, so two servers in a JVM never mix. */
    private final ThreadLocal<BayeuxContext> currentContext = new ThreadLocal<>();

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
        this.metaHandlers = Map.of(
                Channel.META_HANDSHAKE, new HandshakeHandler(this),
                Channel.META_CONNECT, new ConnectHandler(this),
                Channel.META_SUBSCRIBE, new SubscribeHandler(this, true),
                Channel.META_UNSUBSCRIBE, new SubscribeHandler(this, false),
                Channel.META_DISCONNECT, new DisconnectHandler(this));
        for (String meta : metaHandlers.keySet()) {
            createChannelIfAbsent(meta, ConfigurableServerChannel.Initializer.persistent());
        }
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
     * Whether a transport may handle {@code batch} on an event loop, its replies too: it holds
     * {@code /meta/connect}s only, of known sessions whose replies involve no application code
     * (see {@link NonBlocking}), and no listener listens on {@code /meta/connect}. The answer
     * holds for the moment it is given: an extension or listener added meanwhile takes part
     * from the next batch on.
     */
    public boolean handlesOnLoop(List<ServerMessage.Mutable> batch) {
        if (!extensions.isNonBlocking()) {
            return false;
        }
        ServerChannelImpl connects = channels.get(Channel.META_CONNECT);
        if (connects != null && !connects.messageListeners().isEmpty()) {
            return false;
        }
        for (int i = 0, n = batch.size(); i < n; i++) {
            ServerMessage.Mutable message = batch.get(i);
            if (!Channel.META_CONNECT.equals(message.get(Message.CHANNEL_FIELD))
                    || !(message.get(Message.CLIENT_ID_FIELD) instanceof String clientId)) {
                return false;
            }
            ServerSessionImpl session = sessions.get(clientId);
            if (session == null || !session.repliesWithoutApplicationCode()) {
                return false;
            }
        }
        return true;
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

    public JsonCodec jsonCodec() {
        return codec;
    }

    @Override
    public List<String> getAllowedTransports() {
        return config.allowedTransports();
    }

    // --- the transport side

    /**
     * The browser ids of the open connections that {@linkplain Endpoint#adoptsSessions() adopt
     * sessions} (WebSockets upgraded without a cookie, whose 101 set this one), with the
     * connection (which knows when it opened: no boxed time per entry): a request that carries
     * such an id comes from that connection's client.
     */
    private final Map<String, ConnectionImpl> adoptingBrowsers = new ConcurrentHashMap<>();

    void adoptingConnectionOpened(String browserId, ConnectionImpl connection) {
        adoptingBrowsers.put(browserId, connection);
    }

    void adoptingConnectionClosed(String browserId, ConnectionImpl connection) {
        adoptingBrowsers.remove(browserId, connection);
    }

    /**
     * Whether the server is behind delivering: some session whose connection keeps taking
     * bytes has {@code maxQueue / 2} messages or more waiting. Transports then stop reading the
     * connections that publish, so that TCP slows the publishers down, instead of letting the
     * readers' queues overflow.
     */
    public boolean isBehind() {
        return behindSessions.get() > 0;
    }

    /**
     * Runs {@code task} once the server is no longer {@linkplain #isBehind() behind}: at once
     * when it is not, otherwise on the thread that delivers the last late message.
     */
    public void whenCaughtUp(Runnable task) {
        caughtUpTasks.add(task);
        if (behindSessions.get() == 0) {
            runCaughtUpTasks();
        }
    }

    /** A session started, or stopped, counting as one the server is behind with. */
    void behind(boolean started) {
        if (started) {
            behindSessions.incrementAndGet();
        } else if (behindSessions.decrementAndGet() == 0) {
            runCaughtUpTasks();
        }
    }

    private void runCaughtUpTasks() {
        Runnable task;
        while ((task = caughtUpTasks.poll()) != null) {
            try {
                task.run();
            } catch (RuntimeException x) {
                LOG.warn("Task {} run when deliveries caught up failed", task, x);
            }
        }
    }

    /** The flusher that pushes from {@code loop}, one per event loop. */
    LoopFlusher loopFlusher(Executor loop) {
        return loopFlushers.computeIfAbsent(loop, LoopFlusher::new);
    }

    /** Makes the core's side of a new network connection. */
    public Connection newConnection(Endpoint endpoint) {
        return new ConnectionImpl(this, Objects.requireNonNull(endpoint, "endpoint"));
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
        if (messages.isEmpty()) {
            return EMPTY_ARRAY.clone();
        }
        if (messages.size() == 1) {
            return encodeArray(messages.get(0));
        }
        byte[][] parts = new byte[messages.size()][];
        int length = 1 + messages.size();
        for (int i = 0; i < parts.length; i++) {
            parts[i] = encodeArray(messages.get(i));
            length += parts[i].length - 2;
        }
        byte[] out = new byte[length];
        out[0] = '[';
        int at = 1;
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) {
                out[at++] = ',';
            }
            System.arraycopy(parts[i], 1, out, at, parts[i].length - 2);
            at += parts[i].length - 2;
        }
        out[at] = ']';
        return out;
    }

    /**
     * One message as a JSON array of one, {@code [ {...} ]}; a frozen message's bytes are
     * computed once and shared: the caller must not modify them.
     */
    public byte[] encodeArray(ServerMessage message) throws JsonCodec.JsonException {
        if (message instanceof ServerMessageImpl impl) {
            return impl.encodeArray(codec);
        }
        byte[] json = codec.encode(message);
        byte[] out = new byte[json.length + 2];
        out[0] = '[';
        System.arraycopy(json, 0, out, 1, json.length);
        out[out.length - 1] = ']';
        return out;
    }

    // --- handling one message

    /**
     * Runs one incoming message through validation, extensions and its handler, with the
     * endpoint's {@link BayeuxContext} on the message, its reply and the current thread. Never throws.
     */
    Exchange handle(ConnectionImpl connection, ServerMessage.Mutable message) {
        BayeuxContext context = connection.endpoint().bayeuxContext();
        if (context != null && message instanceof ServerMessageImpl impl) {
            impl.setBayeuxContext(context);
        }
        ServerMessage.Mutable reply = newReply(message);
        Exchange exchange = new Exchange(connection, message, reply);
        BayeuxContext outer = currentContext.get();
        currentContext.set(context);
        try {
            handle(exchange);
        } catch (RuntimeException x) {
            LOG.warn("Failed to handle {}", message, x);
            exchange.error("500::server_error");
        } finally {
            restoreContext(outer);
        }
        return exchange;
    }

    private void restoreContext(BayeuxContext outer) {
        if (outer == null) {
            currentContext.remove();
        } else {
            currentContext.set(outer);
        }
    }

    /** Runs {@code call} with {@code context} as the {@linkplain #getContext() current context}. */
    <T> T withContext(BayeuxContext context, Supplier<T> call) {
        if (context == null) {
            return call.get();
        }
        BayeuxContext outer = currentContext.get();
        currentContext.set(context);
        try {
            return call.get();
        } finally {
            restoreContext(outer);
        }
    }

    @Override
    public BayeuxContext getContext() {
        return currentContext.get();
    }

    private void handle(Exchange exchange) {
        ServerMessage.Mutable message = exchange.message;
        Object channelField = message.get(Message.CHANNEL_FIELD);
        if (!(channelField instanceof String channelName)) {
            exchange.error("400::channel_missing");
            return;
        }
        // An existing channel's name is valid, and its id parsed already.
        ServerChannelImpl known = channels.get(channelName);
        if (known == null && !ChannelId.isValid(channelName)) {
            exchange.error("405::channel_invalid");
            return;
        }
        Object id = message.get(Message.ID_FIELD);
        if (id != null && !(id instanceof String || id instanceof Number)) {
            exchange.error("405::message_id_invalid");
            return;
        }
        boolean handshake = Channel.META_HANDSHAKE.equals(channelName);
        if (!isTransportAllowed(exchange.connection)) {
            refuseTransport(exchange, handshake);
            return;
        }
        ServerSessionImpl session;
        if (handshake) {
            LocalSessionImpl local = exchange.connection.localSession();
            String newId = sessions.newId();
            session = local != null ? local.newServerSession(newId) : new ServerSessionImpl(this, newId, null);
        } else {
            session = message.get(Message.CLIENT_ID_FIELD) instanceof String clientId ? sessions.get(clientId) : null;
            if (session != null && (session.isRemoved() || !sameBrowser(session, exchange.connection))) {
                session = null;
            }
        }
        exchange.session = session;
        if (!extensions.incoming(session, message)) {
            exchange.error("404::message_deleted");
            return;
        }
        ChannelId channelId = known != null ? known.getChannelId() : ChannelId.of(channelName);
        if (handshake) {
            metaHandlers.get(channelName).handle(exchange);
            return;
        }
        if (session == null || !session.isHandshook()) {
            String reason = session == null ? sessions.takeReason(message.getClientId()) : null;
            exchange.error(reason != null ? reason : "402::session_unknown");
            Advice.handshake(exchange.reply);
            exchange.session = null;
            return;
        }
        boolean connect = Channel.META_CONNECT.equals(channelName);
        session.messageArrived(connect);
        if (exchange.connection.endpoint().canPush()) {
            session.outbox().bind(exchange.connection);
        }
        if (channelId.isMeta()) {
            MetaHandler handler = metaHandlers.get(channelName);
            if (handler == null) {
                handleUnknownMeta(exchange, channelId);
            } else if (notifyMetaListeners(exchange, channelName)) {
                handler.handle(exchange);
            }
        } else {
            handlePublish(exchange, channelId);
        }
    }

    /** Whether a message may arrive over this connection's transport: local sessions always may. */
    private boolean isTransportAllowed(ConnectionImpl connection) {
        return connection.localSession() != null || config.allowedTransports().contains(connection.endpoint().transportName());
    }

    /**
     * Refuses a message that came over a transport the configuration does not allow, before any
     * session, extension or listener sees it. A handshake is told the transports it may use and
     * not to retry (the same request would fail again); any other message is told to handshake,
     * which lets a client renegotiate its transport.
     */
    private void refuseTransport(Exchange exchange, boolean handshake) {
        exchange.error("403:" + exchange.connection.endpoint().transportName() + ":transport_not_allowed");
        if (handshake) {
            exchange.reply.put(Message.VERSION_FIELD, Bayeux.VERSION);
            exchange.reply.put(Message.SUPPORTED_CONNECTION_TYPES_FIELD, config.allowedTransports());
            Advice.none(exchange.reply);
        } else {
            Advice.handshake(exchange.reply);
        }
    }

    /**
     * A clientId alone is not enough: a session that belongs to a browser is usable only by
     * connections of that same browser (see {@link BrowserBinding}), so a request without its
     * cookie is refused too, as CometD does. Only sessions that belong to no browser (local
     * sessions, transports that know no browsers) are usable by clientId alone.
     */
    private boolean sameBrowser(ServerSessionImpl session, ConnectionImpl connection) {
        Object browser = session.browser();
        if (browser == null) {
            return true;
        }
        Endpoint endpoint = connection.endpoint();
        String browserId = endpoint.browserId();
        boolean adopting = endpoint.adoptsSessions();
        // A request with the cookie that an adopting connection's 101 set speaks for that connection:
        // Faye's client keeps that cookie and may send it over long-polling before it uses the socket.
        ConnectionImpl adopter = adopting ? connection : browserId == null ? null : adoptingBrowsers.get(browserId);
        if (!BrowserBinding.admits(browser, browserId, connection.browserAlias(), adopter != null, adopter == null ? Long.MAX_VALUE : adopter.openedAt(), scheduler().now())) {
            return false;
        }
        if (adopting) {
            // This connection now speaks for the owner's browser: the session's client re-handshakes on it with that cookie.
            connection.browserAlias(BrowserBinding.owner(browser));
        }
        return true;
    }

    /** Counts the held long-polling connects of each browser. */
    BrowserHolds browserHolds() {
        return browserHolds;
    }

    private boolean notifyMetaListeners(Exchange exchange, String channelName) {
        ServerChannelImpl channel = channels.get(channelName);
        if (channel != null) {
            for (ServerChannel.MessageListener listener : channel.messageListeners()) {
                try {
                    if (!listener.onMessage(exchange.session, channel, exchange.message)) {
                        exchange.error("404::message_deleted");
                        return false;
                    }
                } catch (RuntimeException x) {
                    logListenerFailure(listener, x);
                }
            }
        }
        return true;
    }

    private void handleUnknownMeta(Exchange exchange, ChannelId channelId) {
        Authorizer.Result create = authorize(Authorizer.Operation.CREATE, channelId, null, exchange.session, exchange.message);
        if (create instanceof Authorizer.Result.Denied denied) {
            exchange.error("403:" + denied.reason() + ":channel_create_denied");
        } else {
            exchange.error("400::channel_unknown");
        }
    }

    private void handlePublish(Exchange exchange, ChannelId channelId) {
        if (channelId.isWild()) {
            exchange.error("405::channel_invalid");
            return;
        }
        ServerSessionImpl session = exchange.session;
        ServerChannelImpl channel = channels.get(channelId.getId());
        if (channel == null) {
            Authorizer.Result create = authorize(Authorizer.Operation.CREATE, channelId, null, session, exchange.message);
            if (create instanceof Authorizer.Result.Denied denied) {
                exchange.error("403:" + denied.reason() + ":channel_create_denied");
                return;
            }
            channel = (ServerChannelImpl) createChannelIfAbsent(channelId.getId()).getReference();
        }
        Authorizer.Result publish = authorize(Authorizer.Operation.PUBLISH, channelId, channel, session, exchange.message);
        if (publish instanceof Authorizer.Result.Denied denied) {
            exchange.error("403:" + denied.reason() + ":publish_denied");
            return;
        }
        if (publish(session, channel, exchange.message)) {
            exchange.reply.setSuccessful(true);
        } else {
            exchange.error("404::message_deleted");
        }
    }

    ServerMessage.Mutable newReply(ServerMessage.Mutable message) {
        ServerMessageImpl reply = new ServerMessageImpl();
        reply.setAssociated(message);
        reply.setBayeuxContext(message.getBayeuxContext());
        Object channel = message.get(Message.CHANNEL_FIELD);
        if (channel instanceof String name) {
            reply.setChannel(name);
            if (name.startsWith(Channel.META + "/") && message.get(Message.CLIENT_ID_FIELD) instanceof String clientId) {
                reply.setClientId(clientId);
            }
        }
        Object id = message.get(Message.ID_FIELD);
        if (id instanceof String || id instanceof Number) {
            reply.put(Message.ID_FIELD, id);
        }
        Object subscription = message.get(Message.SUBSCRIPTION_FIELD);
        if (subscription != null) {
            reply.put(Message.SUBSCRIPTION_FIELD, subscription);
        }
        return reply;
    }

    // --- authorization

    /** Decides an operation on a channel: see {@link Authorization}. */
    Authorizer.Result authorize(Authorizer.Operation operation, ChannelId channelId, ServerChannel channel,
                                ServerSessionImpl session, ServerMessage message) {
        return Authorization.decide(this, operation, channelId, channel, session, message);
    }

    // --- publishing and delivering

    /**
     * Publishes on a channel: channel listeners (wildcard channels first) may veto; service
     * and meta channels stop there; otherwise the message loses its clientId and id, passes
     * the server extensions once, is frozen and goes to every subscriber of the channel and of
     * the matching wildcard channels, once per session.
     *
     * @return false when vetoed or dropped
     */
    boolean publish(ServerSessionImpl from, ServerChannelImpl channel, ServerMessage.Mutable message) {
        ChannelId channelId = channel.getChannelId();
        List<String> wildIds = channelId.getWildIds();
        ServerChannelImpl[] wilds = new ServerChannelImpl[wildIds.size()];
        for (int i = 0; i < wilds.length; i++) {
            wilds[i] = channels.get(wildIds.get(i));
        }
        for (int i = wilds.length - 1; i >= -1; i--) {
            ServerChannelImpl target = i < 0 ? channel : wilds[i];
            if (target != null && !notifyMessageListeners(from, target, channel, message)) {
                return false;
            }
        }
        if (!channelId.isBroadcast()) {
            return true;
        }
        message.remove(Message.CLIENT_ID_FIELD);
        message.remove(Message.ID_FIELD);
        // Lazy when marked so, or when any channel it is published to is lazy, wildcards included.
        if (channel.isLazy() || anyLazy(wilds)) {
            message.setLazy(true);
        }
        if (!extensions.outgoing(from, null, message)) {
            return false;
        }
        HistoryPolicy policy = histories.isOn() ? Histories.policy(channel, wilds) : null;
        if (policy != null) {
            histories.publish(from, channel, wilds, message, policy);
            return true;
        }
        fanOut(from, channel, wilds, freeze(message));
        return true;
    }

    /** Delivers a frozen broadcast to every subscriber of the channel and of its wildcard channels, once per session. */
    void fanOut(ServerSessionImpl from, ServerChannelImpl channel, ServerChannelImpl[] wilds, ServerMessageImpl frozen) {
        long lazyTimeout = frozen.isLazy() ? lazyTimeout(channel, wilds) : -1;
        boolean toPublisher = channel.isBroadcastToPublisher();
        int populated = channel.subscribers().isEmpty() ? 0 : 1;
        for (ServerChannelImpl wild : wilds) {
            if (wild != null && !wild.subscribers().isEmpty()) {
                populated++;
            }
        }
        if (populated <= 1) {
            // The common case: one channel has subscribers, no session can be reached twice.
            ServerChannelImpl only = !channel.subscribers().isEmpty() ? channel : firstPopulated(wilds);
            if (only != null) {
                for (ServerSessionImpl subscriber : only.subscribers()) {
                    deliverBroadcast(from, subscriber, frozen, lazyTimeout, toPublisher);
                }
            }
            return;
        }
        Set<ServerSessionImpl> reached = new HashSet<>();
        for (int i = -1; i < wilds.length; i++) {
            ServerChannelImpl target = i < 0 ? channel : wilds[i];
            if (target != null) {
                for (ServerSessionImpl subscriber : target.subscribers()) {
                    if (reached.add(subscriber)) {
                        deliverBroadcast(from, subscriber, frozen, lazyTimeout, toPublisher);
                    }
                }
            }
        }
    }

    // --- history

    /** The histories of this server's channels, in memory or kept by an engine. */
    public Histories histories() {
        return histories;
    }

    /** Fans out a stamped message from the history engine to this server's subscribers. */
    void fanOutFromEngine(String channelName, ServerMessage.Mutable message) {
        ServerChannelImpl channel = (ServerChannelImpl) createChannelIfAbsent(channelName).getReference();
        ServerChannelImpl[] wilds = wildChannels(channel.getChannelId());
        if (channel.isLazy() || anyLazy(wilds)) {
            message.setLazy(true);
        }
        fanOut(null, channel, wilds, freeze(message));
    }

    /** The wildcard channels that match {@code id}, most specific first, null where none exists. */
    ServerChannelImpl[] wildChannels(ChannelId id) {
        List<String> wildIds = id.getWildIds();
        ServerChannelImpl[] wilds = new ServerChannelImpl[wildIds.size()];
        for (int i = 0; i < wilds.length; i++) {
            wilds[i] = channels.get(wildIds.get(i));
        }
        return wilds;
    }

    /** The message frozen: itself when it is this server's kind, else a copy. */
    ServerMessageImpl freeze(ServerMessage message) {
        ServerMessageImpl frozen = message instanceof ServerMessageImpl impl ? impl : copyOf(message);
        frozen.freeze();
        return frozen;
    }

    private static boolean anyLazy(ServerChannelImpl[] channels) {
        for (ServerChannelImpl channel : channels) {
            if (channel != null && channel.isLazy()) {
                return true;
            }
        }
        return false;
    }

    /**
     * How long a lazy message may wait: the shortest lazy timeout set on the channel or on a
     * lazy wildcard channel that matches it, never more than {@code maxLazyTimeout}.
     */
    long lazyTimeout(ServerChannelImpl channel, ServerChannelImpl[] wilds) {
        long timeout = config.maxLazyTimeout().toMillis();
        if (channel != null && channel.getLazyTimeout() > 0) {
            timeout = Math.min(timeout, channel.getLazyTimeout());
        }
        for (ServerChannelImpl wild : wilds) {
            if (wild != null && wild.isLazy() && wild.getLazyTimeout() > 0) {
                timeout = Math.min(timeout, wild.getLazyTimeout());
            }
        }
        return timeout;
    }

    /** The lazy timeout of a message on {@code channelName}, from that channel and its wildcard channels. */
    private long lazyTimeout(String channelName) {
        if (channelName == null || !ChannelId.isValid(channelName)) {
            return config.maxLazyTimeout().toMillis();
        }
        ServerChannelImpl channel = channels.get(channelName);
        List<String> wildIds = (channel != null ? channel.getChannelId() : ChannelId.of(channelName)).getWildIds();
        ServerChannelImpl[] wilds = new ServerChannelImpl[wildIds.size()];
        for (int i = 0; i < wilds.length; i++) {
            wilds[i] = channels.get(wildIds.get(i));
        }
        return lazyTimeout(channel, wilds);
    }

    private static ServerChannelImpl firstPopulated(ServerChannelImpl[] channels) {
        for (ServerChannelImpl channel : channels) {
            if (channel != null && !channel.subscribers().isEmpty()) {
                return channel;
            }
        }
        return null;
    }

    private void deliverBroadcast(ServerSessionImpl from, ServerSessionImpl to, ServerMessage message, long lazyTimeout, boolean toPublisher) {
        if (to == from && !(toPublisher && to.isBroadcastToPublisher())) {
            return;
        }
        to.deliverShared(from, message, lazyTimeout);
    }

    private boolean notifyMessageListeners(ServerSessionImpl from, ServerChannelImpl listening, ServerChannelImpl channel, ServerMessage.Mutable message) {
        for (ServerChannel.MessageListener listener : listening.messageListeners()) {
            try {
                if (!listener.onMessage(from, channel, message)) {
                    return false;
                }
            } catch (RuntimeException x) {
                logListenerFailure(listener, x);
            }
        }
        return true;
    }

    /** Delivers to one session only: server extensions, freeze, then the session's own path. */
    boolean deliverPrivately(Session sender, ServerSessionImpl to, ServerMessage.Mutable message) {
        ServerSessionImpl from = asServerSession(sender);
        if (!extensions.outgoing(from, to, message)) {
            return false;
        }
        ServerMessageImpl frozen = message instanceof ServerMessageImpl impl ? impl : copyOf(message);
        frozen.freeze();
        return to.deliverShared(from, frozen, frozen.isLazy() ? lazyTimeout(frozen.getChannel()) : -1);
    }

    private static ServerMessageImpl copyOf(ServerMessage message) {
        ServerMessageImpl copy = new ServerMessageImpl(message);
        copy.setAssociated(message.getAssociated());
        copy.setLazy(message.isLazy());
        copy.setBayeuxContext(message.getBayeuxContext());
        return copy;
    }

    ServerSessionImpl asServerSession(Session session) {
        if (session instanceof ServerSessionImpl impl) {
            return impl;
        }
        if (session instanceof LocalSession local && local.getServerSession() instanceof ServerSessionImpl impl) {
            return impl;
        }
        return null;
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

    // --- listeners

    @Override
    public void addListener(BayeuxServerListener listener) {
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

    @Override
    public void removeListener(BayeuxServerListener listener) {
        sessionListeners.remove(listener);
        channelListeners.remove(listener);
        subscriptionListeners.remove(listener);
    }

    void notifySubscribed(ServerSessionImpl session, ServerChannelImpl channel, ServerMessage message) {
        for (SubscriptionListener listener : subscriptionListeners) {
            safely(listener, () -> listener.subscribed(session, channel, message));
        }
    }

    void notifyUnsubscribed(ServerSessionImpl session, ServerChannelImpl channel, ServerMessage message) {
        for (SubscriptionListener listener : subscriptionListeners) {
            safely(listener, () -> listener.unsubscribed(session, channel, message));
        }
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
            for (ChannelListener listener : channelListeners) {
                safely(listener, () -> listener.configureChannel(channel));
            }
            for (ConfigurableServerChannel.Initializer initializer : initializers) {
                safely(initializer, () -> initializer.configureChannel(channel));
            }
        });
        if (result.created()) {
            for (ChannelListener listener : channelListeners) {
                safely(listener, () -> listener.channelAdded(result.channel()));
            }
        }
        return new MarkedReference<>(result.channel(), result.created());
    }

    /** Takes a swept channel out of the registry; called under its lifecycle lock. */
    boolean unregister(ServerChannelImpl channel) {
        return channels.remove(channel);
    }

    /** Tells that the sweeper removed a channel: its subscribers (none, normally) go, its listeners are told. */
    void channelSwept(ServerChannelImpl channel) {
        for (ServerSessionImpl subscriber : List.copyOf(channel.subscribers())) {
            channel.unsubscribe(subscriber, null);
        }
        for (ChannelListener listener : channelListeners) {
            safely(listener, () -> listener.channelRemoved(channel.getId()));
        }
    }

    void removeChannel(ServerChannelImpl channel) {
        if (!channels.remove(channel)) {
            return;
        }
        for (ServerSessionImpl subscriber : List.copyOf(channel.subscribers())) {
            channel.unsubscribe(subscriber, null);
        }
        for (ChannelListener listener : channelListeners) {
            safely(listener, () -> listener.channelRemoved(channel.getId()));
        }
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

    Collection<ServerSessionImpl> sessions() {
        return sessions.all();
    }

    void addSession(ServerSessionImpl session, ServerMessage message) {
        sessions.add(session);
        for (ServerSession.AddedListener listener : session.listeners().added()) {
            safely(listener, () -> listener.added(session, message));
        }
        for (SessionListener listener : sessionListeners) {
            safely(listener, () -> listener.sessionAdded(session, message));
        }
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
        PendingBatch held = session.connectHold().take();
        if (!session.markRemoved()) {
            return false;
        }
        sessions.remove(session);
        boolean told = false;
        if (held != null) {
            for (Exchange exchange : held.exchanges()) {
                if (exchange.connect) {
                    if (error != null) {
                        exchange.error(error);
                        Advice.handshake(exchange.reply);
                        told = true;
                    } else {
                        Advice.none(exchange.reply);
                    }
                }
            }
            held.resume();
        }
        if (error != null && !told) {
            sessions.rememberReason(session.getId(), error);
        }
        for (ServerChannelImpl channel : session.subscriptions()) {
            channel.unsubscribe(session, message);
        }
        for (ServerSession.RemoveListener listener : session.listeners().removed()) {
            safely(listener, () -> listener.removed(session, message, timeout));
        }
        for (SessionListener listener : sessionListeners) {
            safely(listener, () -> listener.sessionRemoved(session, message, timeout));
        }
        if (session.localSession() != null) {
            session.localSession().removed();
        }
        return true;
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
