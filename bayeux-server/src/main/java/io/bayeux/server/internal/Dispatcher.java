package io.bayeux.server.internal;

import io.bayeux.api.Bayeux;
import io.bayeux.api.Channel;
import io.bayeux.api.ChannelId;
import io.bayeux.api.Message;
import io.bayeux.api.server.Authorizer;
import io.bayeux.api.server.BayeuxContext;
import io.bayeux.api.server.ConfigurableServerChannel;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.NonBlocking;
import io.bayeux.server.Scheduler;
import io.bayeux.server.spi.Endpoint;
import io.bayeux.server.spi.ServerObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Handles one incoming message: validates it, finds its session (refusing a transport the
 * configuration does not allow, or a connection of another browser), runs the incoming
 * extensions, then hands it to its meta channel's {@link MetaHandler} or publishes it through
 * the {@link Broadcaster}. Also keeps the {@link BayeuxContext} of the message being handled
 * on each thread.
 *
 * <p>Thread-safe: its maps are concurrent and its handlers stateless; the context is per
 * thread and per server, so two servers in one JVM never mix.
 */
final class Dispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

    private final BayeuxServerImpl server;
    private final ChannelRegistry channels;
    private final SessionRegistry sessions;
    private final Map<String, MetaHandler> metaHandlers;
    /** The context of the message being handled on each thread. */
    private final ThreadLocal<BayeuxContext> currentContext = new ThreadLocal<>();
    /**
     * The browser ids of the open connections that {@linkplain Endpoint#adoptsSessions() adopt
     * sessions} (WebSockets upgraded without a cookie, whose 101 set this one), with the
     * connection (which knows when it opened: no boxed time per entry): a request that carries
     * such an id comes from that connection's client.
     */
    private final ShrinkingMap<String, ConnectionImpl> adoptingBrowsers = new ShrinkingMap<>();

    Dispatcher(BayeuxServerImpl server, ChannelRegistry channels, SessionRegistry sessions) {
        this.server = server;
        this.channels = channels;
        this.sessions = sessions;
        this.metaHandlers = Map.of(
                Channel.META_HANDSHAKE, new HandshakeHandler(server),
                Channel.META_CONNECT, new ConnectHandler(server),
                Channel.META_SUBSCRIBE, new SubscribeHandler(server, true),
                Channel.META_UNSUBSCRIBE, new SubscribeHandler(server, false),
                Channel.META_DISCONNECT, new DisconnectHandler(server));
    }

    /** Creates the meta channels this dispatcher has handlers for, persistent. */
    void createMetaChannels() {
        for (String meta : metaHandlers.keySet()) {
            server.createChannelIfAbsent(meta, ConfigurableServerChannel.Initializer.persistent());
        }
    }

    void adoptingConnectionOpened(String browserId, ConnectionImpl connection) {
        adoptingBrowsers.put(browserId, connection);
    }

    void adoptingConnectionClosed(String browserId, ConnectionImpl connection) {
        adoptingBrowsers.remove(browserId, connection);
    }

    /** Gives back the table of adopting connections once most are closed ({@link ShrinkingMap#compact}). */
    void compact() {
        adoptingBrowsers.compact();
    }

    /**
     * Whether a transport may handle {@code batch} on an event loop, its replies too: it holds
     * {@code /meta/connect}s only, of known sessions whose replies involve no application code
     * (see {@link NonBlocking}), and no listener listens on {@code /meta/connect}. The answer
     * holds for the moment it is given: an extension or listener added meanwhile takes part
     * from the next batch on.
     */
    boolean handlesOnLoop(List<ServerMessage.Mutable> batch) {
        if (!server.extensionChain().isNonBlocking()) {
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

    /**
     * Runs one incoming message through validation, extensions and its handler, with the
     * endpoint's {@link BayeuxContext} on the message, its reply and the current thread. Never throws.
     */
    Exchange handle(ConnectionImpl connection, ServerMessage.Mutable message) {
        BayeuxContext context = connection.endpoint().bayeuxContext();
        if (context != null && message instanceof ServerMessageImpl impl) {
            impl.setBayeuxContext(context);
        }
        // Measured only while observed: no clock is read otherwise.
        ServerObserver observer = server.observer();
        long arrived = 0;
        if (observer != null) {
            arrived = System.nanoTime();
            if (message instanceof ServerMessageImpl impl) {
                impl.arrivedNanos(arrived);
            }
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
        if (observer != null) {
            observed(observer, exchange, arrived);
        }
        return exchange;
    }

    /** Tells the observer how a meta message went: its handling time, a handshake's outcome. */
    private void observed(ServerObserver observer, Exchange exchange, long arrived) {
        if (exchange.message.get(Message.CHANNEL_FIELD) instanceof String channel && metaHandlers.containsKey(channel)) {
            observer.metaHandled(channel, System.nanoTime() - arrived);
            if (Channel.META_HANDSHAKE.equals(channel)) {
                observer.handshake(exchange.connection.endpoint().transportName(),
                        exchange.reply.isSuccessful() ? null : errorOf(exchange.reply));
            }
        }
    }

    private static String errorOf(ServerMessage reply) {
        return reply.get(Message.ERROR_FIELD) instanceof String error ? error : "500::server_error";
    }

    private void restoreContext(BayeuxContext outer) {
        if (outer == null) {
            currentContext.remove();
        } else {
            currentContext.set(outer);
        }
    }

    /** Runs {@code call} with {@code context} as the {@linkplain #context() current context}. */
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

    /** The context of the message being handled on this thread, or null. */
    BayeuxContext context() {
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
            session = local != null ? local.newServerSession(newId) : new ServerSessionImpl(server, newId, null);
        } else {
            session = message.get(Message.CLIENT_ID_FIELD) instanceof String clientId ? sessions.get(clientId) : null;
            if (session != null && (session.isRemoved() || !sameBrowser(session, exchange.connection))) {
                session = null;
            }
        }
        exchange.session = session;
        if (!server.extensionChain().incoming(session, message)) {
            exchange.error("404::message_deleted");
            return;
        }
        ChannelId channelId = known != null ? known.getChannelId() : ChannelId.of(channelName);
        if (handshake) {
            metaHandlers.get(channelName).handle(exchange);
            return;
        }
        if (session == null || !session.isHandshook()) {
            // Removed maybe since it was found (by an extension, or by another thread meanwhile):
            // the removal remembered its reason before marking it removed. Only the session's own
            // browser is told it: another that names the session learns nothing, and takes nothing.
            ConnectionImpl connection = exchange.connection;
            String reason = session == null || session.isRemoved() ? sessions.takeReason(message.getClientId(),
                    browser -> BrowserBinding.belongsTo(browser, connection.endpoint().browserId(), connection.browserAlias())) : null;
            exchange.error(reason != null ? reason : "402::session_unknown");
            Advice.handshake(exchange.reply);
            exchange.session = null;
            return;
        }
        boolean connect = Channel.META_CONNECT.equals(channelName);
        session.expiry().messageArrived(connect);
        // Ended as a connect, whatever happens to it next (a listener may delete it): its reply
        // starts the expiry again and lets the replies to other requests carry the queue.
        exchange.connect = connect;
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
            ServerObserver observer = server.observer();
            if (observer != null && !exchange.reply.isSuccessful()) {
                observer.publishRefused(errorOf(exchange.reply));
            }
        }
    }

    /** Whether a message may arrive over this connection's transport: local sessions always may. */
    private boolean isTransportAllowed(ConnectionImpl connection) {
        return connection.localSession() != null || server.config().allowedTransports().contains(connection.endpoint().transportName());
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
            exchange.reply.put(Message.SUPPORTED_CONNECTION_TYPES_FIELD, server.config().allowedTransports());
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
        Scheduler clock = server.scheduler();
        if (!BrowserBinding.admits(browser, browserId, connection.browserAlias(), adopter != null, adopter == null ? Long.MAX_VALUE : adopter.openedAt(),
                clock.now(), clock::now, server.afterAccepts())) {
            LOG.debug("Session {} of {} refused to browser {} (alias {}, adopting connection opened at {}) at {}", session.getId(), browser, browserId,
                    connection.browserAlias(), adopter == null ? null : adopter.openedAt(), clock.now());
            return false;
        }
        if (adopting) {
            // This connection now speaks for the owner's browser: the session's client re-handshakes on it with that cookie.
            connection.browserAlias(BrowserBinding.owner(browser));
        }
        return true;
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
                    server.logListenerFailure(listener, x);
                }
            }
        }
        return true;
    }

    private void handleUnknownMeta(Exchange exchange, ChannelId channelId) {
        Authorizer.Result create = server.authorize(Authorizer.Operation.CREATE, channelId, null, exchange.session, exchange.message);
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
            Authorizer.Result create = server.authorize(Authorizer.Operation.CREATE, channelId, null, session, exchange.message);
            if (create instanceof Authorizer.Result.Denied denied) {
                exchange.error("403:" + denied.reason() + ":channel_create_denied");
                return;
            }
            channel = (ServerChannelImpl) server.createChannelIfAbsent(channelId.getId()).getReference();
        }
        Authorizer.Result publish = server.authorize(Authorizer.Operation.PUBLISH, channelId, channel, session, exchange.message);
        if (publish instanceof Authorizer.Result.Denied denied) {
            exchange.error("403:" + denied.reason() + ":publish_denied");
            return;
        }
        if (server.broadcaster().publish(session, channel, exchange.message)) {
            exchange.reply.setSuccessful(true);
            ServerObserver observer = server.observer();
            if (observer != null) {
                observer.published(exchange.connection.endpoint().transportName());
            }
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
}
