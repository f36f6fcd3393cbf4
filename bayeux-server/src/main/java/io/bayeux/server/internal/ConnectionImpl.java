package io.bayeux.server.internal;

import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.Scheduler;
import io.bayeux.server.spi.Connection;
import io.bayeux.server.spi.Endpoint;
import io.bayeux.server.spi.ServerObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The core's side of one network connection: runs batches through the server, holds the
 * batches that wait on a {@code /meta/connect}, and remembers the sessions that push to it so
 * that closing it re-arms their expiry.
 */
final class ConnectionImpl implements Connection {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionImpl.class);
    private static final Scheduler.Cancellable DONE = () -> false;

    private final BayeuxServerImpl server;
    private final Endpoint endpoint;
    // Copy-on-write, written under this object's monitor: most connections hold one of each at
    // most, so each is null, the one item itself, or an immutable list of two or more (see One).
    private volatile Object pending;
    private volatile Object bound;
    private volatile boolean heldBack;
    private final long openedAt;
    /** Pushes from the endpoint's event loop, or null when the endpoint has none (the session's Flusher pushes). */
    private final LoopFlusher loopFlusher;
    /** Loop-confined: whether the loop flusher's current round wrote to this connection. */
    private boolean written;
    private volatile boolean closed;
    /** The browser this connection also speaks for, having adopted one of its sessions (see BrowserBinding), or null. */
    private volatile String browserAlias;

    ConnectionImpl(BayeuxServerImpl server, Endpoint endpoint) {
        this.server = server;
        this.endpoint = endpoint;
        this.openedAt = Math.min(endpoint.acceptedAt(), server.scheduler().now());
        this.loopFlusher = endpoint.eventLoop() == null ? null : server.loopFlusher(endpoint.eventLoop());
        if (endpoint.adoptsSessions() && endpoint.browserId() != null) {
            server.dispatcher().adoptingConnectionOpened(endpoint.browserId(), this);
        }
    }

    BayeuxServerImpl server() {
        return server;
    }

    /** Scheduler time when the network connection was accepted (see {@link Endpoint#acceptedAt()}), else when this was made. */
    long openedAt() {
        return openedAt;
    }

    /** The local session this in-memory connection belongs to, or null for a network connection. */
    LocalSessionImpl localSession() {
        // Found from the endpoint, not kept: a field less on every network connection.
        return endpoint instanceof LocalSessionImpl.LocalEndpoint local ? local.session() : null;
    }

    @Override
    public Endpoint endpoint() {
        return endpoint;
    }

    /** The flusher of the endpoint's event loop, or null when the endpoint has none. */
    LoopFlusher loopFlusher() {
        return loopFlusher;
    }

    /** On the loop: marks the connection written in this round. @return whether it was not yet */
    boolean markWritten() {
        if (written) {
            return false;
        }
        written = true;
        return true;
    }

    void clearWritten() {
        written = false;
    }

    @Override
    public void writable() {
        One.<SessionOutbox>forEach(bound, outbox -> outbox.wakeUp(false));
    }

    @Override
    public void heldBack(boolean held) {
        heldBack = held;
        if (!held) {
            One.<SessionOutbox>forEach(bound, outbox -> outbox.session().expiry().heldBackEnded());
        }
    }

    /** Whether the transport holds reading back for the server's sake (see {@link #heldBack(boolean)}). */
    boolean isHeldBack() {
        return heldBack;
    }

    @Override
    public void stalled() {
        One.<SessionOutbox>forEach(bound, outbox -> outbox.stalled(this));
    }

    String browserAlias() {
        return browserAlias;
    }

    void browserAlias(String browserId) {
        if (browserAlias == null) {
            browserAlias = browserId;
        }
    }

    /**
     * A batch that publishes is handled as a batch of its session ({@link ServerSessionImpl#startBatch}):
     * the messages it delivers to its own session (a publish to a channel it subscribes to)
     * wake the session's held connect once the whole batch is handled and its reply made, not
     * at the first of them. Otherwise that connect's reply (made at once, on this thread) would
     * carry the first, and this batch's reply, on the client's other connection, the others:
     * two responses the client may read in either order.
     *
     * <p>A batch of several messages also {@linkplain LoopFlusher#hold() holds} the push rounds it
     * starts until it is handled: each subscriber on a pushing connection gets what the batch
     * delivered to it in one frame, not the first message alone and the rest in another.
     */
    @Override
    public Scheduler.Cancellable handle(List<ServerMessage.Mutable> batch, Consumer<List<ServerMessage>> replies) {
        ServerSessionImpl batching = batchingSession(batch);
        if (batching == null) {
            return handleBatch(batch, replies);
        }
        // What several messages deliver to pushing sessions reaches their loops at the end, together.
        boolean hold = batch.size() > 1;
        if (hold) {
            LoopFlusher.hold();
        }
        try {
            batching.startBatch();
            try {
                return handleBatch(batch, replies);
            } finally {
                try {
                    batching.endBatch();
                } catch (IllegalStateException x) {
                    // Application code ended more batches than it started, this one included.
                    LOG.warn("Unbalanced endBatch() on {} while it handled a batch", batching, x);
                }
            }
        } finally {
            if (hold) {
                LoopFlusher.release();
            }
        }
    }

    /** The session a batch holding more than {@code /meta/connect}s comes from, when it exists already; else null. */
    private ServerSessionImpl batchingSession(List<ServerMessage.Mutable> batch) {
        String clientId = null;
        boolean connectsOnly = true;
        for (int i = 0, n = batch.size(); i < n; i++) {
            ServerMessage.Mutable message = batch.get(i);
            connectsOnly &= Channel.META_CONNECT.equals(message.get(Message.CHANNEL_FIELD));
            if (clientId == null && message.get(Message.CLIENT_ID_FIELD) instanceof String id) {
                clientId = id;
            }
        }
        return connectsOnly || clientId == null ? null : server.sessionImpl(clientId);
    }

    private Scheduler.Cancellable handleBatch(List<ServerMessage.Mutable> batch, Consumer<List<ServerMessage>> replies) {
        ServerObserver observer = server.observer();
        if (observer != null) {
            observer.received(endpoint.transportName(), batch.size());
        }
        List<Exchange> exchanges = new ArrayList<>(batch.size());
        ServerSessionImpl session = null;
        boolean connect = false;
        boolean connectsAgain = false;
        long hold = -1;
        for (int i = 0; i < batch.size(); i++) {
            Exchange exchange = server.dispatcher().handle(this, batch.get(i));
            exchanges.add(exchange);
            if (exchange.session != null) {
                session = exchange.session;
            }
            if (exchange.connect) {
                connect = true;
                connectsAgain = exchange.connectsAgain;
                // Only a connect that ends its batch is held: the replies before it wait with it.
                hold = i == batch.size() - 1 ? exchange.holdMillis : -1;
            }
        }
        BrowserHolds.Count browser = null;
        if (hold > 0 && !endpoint.canPush() && endpoint.browserId() != null) {
            browser = server.browserHolds().tryAcquire(endpoint.browserId(), server.config().maxSessionsPerBrowser());
            if (browser == null) {
                adviseMultipleClients(exchanges.get(exchanges.size() - 1));
                hold = -1;
            }
        }
        if (hold > 0 && session != null && !closed) {
            Exchange connectExchange = exchanges.get(exchanges.size() - 1);
            CompactConnect.shareStrings(connectExchange, session, endpoint);
            boolean replyDeferred = CompactConnect.deferReply(connectExchange);
            PendingBatch held;
            if (replyDeferred && exchanges.size() == 1 && session.listeners().heartBeat().isEmpty() && CompactConnect.isPlainConnect(connectExchange.message, session, endpoint)) {
                // The connect alone, as rebuildConnect makes it again: only its id is kept.
                held = PendingBatch.compact(this, session, connectExchange.message.get(Message.ID_FIELD), replies, browser);
            } else {
                // Most held batches are the connect alone: an immutable list of one is half the size.
                held = new PendingBatch(this, session, exchanges.size() == 1 ? List.of(connectExchange) : exchanges, replies,
                        browser, replyDeferred);
            }
            addPending(held);
            if (session.connectHold().hold(held, hold)) {
                if (closed) {
                    held.cancel();
                }
                return held;
            }
            removePending(held);
            if (!held.markDone()) {
                // The connection closed meanwhile and its cancel finished the batch: it gave the
                // browser's hold back and ended the session's connect, and left the queue for the
                // session's next connect. A reply would go to the closed connection.
                return DONE;
            }
            if (replyDeferred) {
                CompactConnect.restoreReply(connectExchange, session);
            }
        }
        if (browser != null) {
            server.browserHolds().release(browser);
        }
        complete(session, exchanges, connect, hold > 0 || connectsAgain, replies);
        return DONE;
    }

    private void adviseMultipleClients(Exchange connect) {
        if (connect.session != null) {
            connect.session.forgetAdvice();
        }
        Map<String, Object> advice = connect.reply.getAdvice(true);
        advice.put(Message.MULTIPLE_CLIENTS_FIELD, true);
        advice.put(Message.RECONNECT_FIELD, Message.RECONNECT_RETRY_VALUE);
        advice.put(Message.INTERVAL_FIELD, server.config().multiSessionInterval().toMillis());
    }

    void completeHeld(PendingBatch held) {
        List<Exchange> exchanges = held.exchanges();
        if (held.replyDeferred) {
            CompactConnect.restoreReply(exchanges.get(exchanges.size() - 1), held.session);
        }
        releaseBrowser(held);
        removePending(held);
        held.session.connectHold().released(held);
        held.session.connectHold().resumed(held, held.wasTimedOut());
        complete(held.session, exchanges, true, true, held.responder);
    }

    void cancelled(PendingBatch held) {
        releaseBrowser(held);
        removePending(held);
        held.session.connectHold().released(held);
        held.session.connectHold().ended(false);
    }

    private void releaseBrowser(PendingBatch held) {
        if (held.browserHold != null) {
            server.browserHolds().release(held.browserHold);
        }
    }

    /**
     * Replies to a handled batch.
     *
     * @param longPolls whether its connect was one to hold (held or not): the client connects again at once
     */
    private void complete(ServerSessionImpl session, List<Exchange> exchanges, boolean connect, boolean longPolls,
            Consumer<List<ServerMessage>> responder) {
        boolean handshake = !exchanges.isEmpty() && Channel.META_HANDSHAKE.equals(exchanges.get(0).message.getChannel());
        // The replies pass the extensions first: the queue's DeQueueListeners see them as sent.
        List<ServerMessage> replies = new ArrayList<>(exchanges.size());
        List<ServerMessage.Mutable> mutableReplies = new ArrayList<>(exchanges.size());
        boolean connectReplyDropped = false;
        for (Exchange exchange : exchanges) {
            // Reply extensions may run later, on another thread: they still see the request's context.
            ServerMessage reply = server.dispatcher().withContext(exchange.message.getBayeuxContext(), () -> server.extensionChain().reply(exchange));
            replies.add(reply);
            if (reply instanceof ServerMessage.Mutable mutable) {
                mutableReplies.add(mutable);
            }
            connectReplyDropped |= reply == null && exchange.connect;
        }
        // A pushing endpoint gets queued messages from the session's flusher, its one writer,
        // unless they may only ride in connect replies; then they stay queued when an
        // extension deleted the connect reply they would ride with (the acknowledgement of a
        // batch travels in that reply: messages without it would come again as duplicates).
        boolean metaConnectOnly = session != null && session.isMetaConnectDeliveryOnly();
        boolean carryQueue = session != null && session.isConnected() && !handshake
                && (endpoint.canPush() ? connect && metaConnectOnly : connect || !metaConnectOnly)
                && !(metaConnectOnly && connectReplyDropped);
        // Beside a held connect of the session, a reply to other requests leaves them to it.
        List<ServerMessage> queued = !carryQueue ? List.of()
                : connect ? session.outbox().takeQueue(mutableReplies) : session.connectHold().takeQueueBesideConnect(mutableReplies);
        List<ServerMessage> out = new ArrayList<>(exchanges.size() + queued.size());
        int first = 0;
        if (handshake) {
            addReply(out, replies.get(0));
            first = 1;
        }
        out.addAll(queued);
        for (int i = first; i < exchanges.size(); i++) {
            addReply(out, replies.get(i));
        }
        // Before the write: the client may read the reply and connect again before this thread
        // goes on, and that connect's gather time counts from this reply.
        if (connect && session != null) {
            session.connectHold().ended(longPolls && !endpoint.canPush());
        }
        ServerObserver observer = server.observer();
        if (observer != null && !queued.isEmpty()) {
            DeliveryTally.report(observer, session.getTransportName(), queued);
        }
        try {
            responder.accept(out);
        } catch (RuntimeException x) {
            LOG.warn("Transport {} failed to take the replies of a batch", endpoint, x);
        }
    }

    private static void addReply(List<ServerMessage> out, ServerMessage reply) {
        if (reply != null) {
            out.add(reply);
        }
    }

    private synchronized void addPending(PendingBatch held) {
        pending = One.plus(pending, held);
    }

    private synchronized void removePending(PendingBatch held) {
        pending = One.minus(pending, held);
    }

    /** A session pushes to this connection from now on. */
    void bound(SessionOutbox outbox) {
        synchronized (this) {
            if (!One.contains(bound, outbox)) {
                bound = One.plus(bound, outbox);
            }
        }
        if (closed) {
            outbox.unbind(this);
        }
    }

    @Override
    public void close() {
        closed = true;
        if (endpoint.adoptsSessions() && endpoint.browserId() != null) {
            server.dispatcher().adoptingConnectionClosed(endpoint.browserId(), this);
        }
        for (PendingBatch held : One.<PendingBatch>list(pending)) {
            held.cancel();
        }
        List<SessionOutbox> outboxes;
        synchronized (this) {
            outboxes = One.list(bound);
            bound = null;
        }
        for (SessionOutbox outbox : outboxes) {
            outbox.unbind(this);
        }
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return "Connection[" + endpoint.transportName() + ", pending=" + One.list(pending).size() + ", closed=" + closed + "]";
    }
}
