package io.bayeux.client;

import io.bayeux.api.Bayeux;
import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSession;
import io.bayeux.client.BayeuxClient.State;
import io.bayeux.client.transport.ClientTransport;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The handshake and the {@code /meta/connect} loop of a {@link BayeuxClient}: what it sends to
 * open a session and keep it, how it reads the replies (the server's advice, a forgotten
 * session, {@code reconnect: none}), and when it tries again: at the advised interval when
 * all is well, after a growing back-off when not. A connect that gets no reply within the
 * advised timeout plus {@link ClientConfig#maxNetworkDelay()} counts as failed.
 *
 * <p>Thread-safe: the client's monitor guards its fields, as it guards the client's state,
 * and the {@link TransportChooser}, {@link ReconnectAdvice} and {@link PendingMessages} they
 * share. Messages are sent, and the application's code runs, without it.
 */
final class ConnectLoop {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectLoop.class);

    private final BayeuxClient client;
    private final TransportChooser transports;
    private final ReconnectAdvice advice;
    private final PendingMessages pending;
    private final EventLoop loop;
    private final long maxNetworkDelayMillis;

    // Guarded by the client's monitor.
    private Map<String, Object> handshakeFields;
    /** Set when a new session replaces a lost one, whose subscriptions must be made again. */
    private boolean resubscribe;
    private boolean connectInFlight;
    private String connectId;
    private ScheduledFuture<?> connectTimer;

    ConnectLoop(BayeuxClient client, TransportChooser transports, ReconnectAdvice advice, PendingMessages pending,
                EventLoop loop, ClientConfig config) {
        this.client = client;
        this.transports = transports;
        this.advice = advice;
        this.pending = pending;
        this.loop = loop;
        this.maxNetworkDelayMillis = config.maxNetworkDelay().toMillis();
    }

    /** Begins a new session; the client ended the last one first. */
    void handshake(Map<String, Object> fields, ClientSession.MessageListener callback) {
        synchronized (client) {
            State state = client.stateLocked();
            if (state != State.DISCONNECTED && state != State.UNCONNECTED) {
                throw new IllegalStateException("Cannot handshake while " + state);
            }
            handshakeFields = fields == null ? Map.of() : Map.copyOf(fields);
            client.moveTo(State.HANDSHAKING);
            transports.restart();
            advice.resetBackoff();
            client.clientIdLocked(null);
        }
        sendHandshake(callback);
    }

    private void sendHandshake(ClientSession.MessageListener callback) {
        Message.Mutable message = client.newMessage();
        Map<String, Object> fields;
        synchronized (client) {
            fields = handshakeFields;
        }
        message.putAll(fields);
        message.setChannel(Channel.META_HANDSHAKE);
        message.put(Message.VERSION_FIELD, Bayeux.VERSION);
        message.put(Message.MIN_VERSION_FIELD, Bayeux.VERSION);
        message.put(Message.SUPPORTED_CONNECTION_TYPES_FIELD, transports.names());
        client.sendMessage(message, callback);
    }

    /**
     * Handles a handshake reply before the application's callbacks see it; returns what to do
     * once they and the extensions have seen it (the first connect), or null.
     */
    FollowUp handshakeReplied(Message reply) {
        boolean connect = false;
        boolean resubscribeNow = false;
        List<Message.Mutable> flush = List.of();
        synchronized (client) {
            State state = client.stateLocked();
            if (state == State.DISCONNECTING || state == State.DISCONNECTED) {
                return null;
            }
            if (reply.isSuccessful()) {
                client.clientIdLocked(reply.getClientId());
                ClientTransport before = transports.current();
                ClientTransport negotiated = transports.negotiate(reply.get(Message.SUPPORTED_CONNECTION_TYPES_FIELD));
                if (negotiated != before && before != null) {
                    before.abort();
                }
                resubscribeNow = state == State.REHANDSHAKING || resubscribe;
                resubscribe = false;
                client.moveTo(State.CONNECTING);
                advice.resetBackoff();
                advice.take(reply);
                flush = pending.takeAll(reply.getClientId());
                connect = true;
            } else if (ReconnectAdvice.isReconnectNone(reply)) {
                client.terminate(State.DISCONNECTED);
            } else {
                client.moveTo(State.REHANDSHAKING);
                client.scheduleLocked(this::rehandshake, advice.nextBackoff());
            }
        }
        if (resubscribeNow) {
            client.subscribeAgain();
        }
        client.sendNow(flush);
        return connect ? new FollowUp(State.CONNECTING, () -> sendConnect(true), -1) : null;
    }

    /** Handshakes again, for a new session, unless the client left the handshake states meanwhile. */
    void rehandshake() {
        ClientTransport previous;
        synchronized (client) {
            State state = client.stateLocked();
            if (state != State.REHANDSHAKING && state != State.HANDSHAKING) {
                return;
            }
            client.clientIdLocked(null);
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

    private void sendConnect(boolean first) {
        Message.Mutable message = client.newMessage();
        message.setChannel(Channel.META_CONNECT);
        long delay;
        synchronized (client) {
            State state = client.stateLocked();
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
            message.setId(client.nextMessageId());
            connectId = message.getId();
            delay = (immediate ? 0 : advice.timeout()) + maxNetworkDelayMillis;
            cancel(connectTimer);
            connectTimer = loop.schedule(() -> connectTimedOut(message.getId()), delay, TimeUnit.MILLISECONDS);
        }
        client.sendMessage(message, null);
    }

    private void connectTimedOut(String id) {
        ClientTransport current;
        synchronized (client) {
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
    FollowUp connectReplied(Message reply) {
        List<Message.Mutable> flush;
        FollowUp next;
        synchronized (client) {
            State state = client.stateLocked();
            String clientId = client.clientIdLocked();
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
                client.terminate(State.DISCONNECTED);
                return null;
            }
            if (!reply.isSuccessful()) {
                Object reconnect = ReconnectAdvice.reconnect(reply);
                if (Message.RECONNECT_NONE_VALUE.equals(reconnect)) {
                    client.terminate(State.DISCONNECTED);
                    return null;
                } else if (Message.RECONNECT_HANDSHAKE_VALUE.equals(reconnect) || "402::session_unknown".equals(reply.get(Message.ERROR_FIELD))) {
                    client.moveTo(State.REHANDSHAKING);
                    return new FollowUp(State.REHANDSHAKING, this::rehandshake, advice.interval());
                } else {
                    client.moveTo(State.UNCONNECTED);
                    return new FollowUp(State.UNCONNECTED, () -> sendConnect(false), advice.nextBackoff());
                }
            }
            client.moveTo(State.CONNECTED);
            advice.resetBackoff();
            // What the application sent while the connection was down goes now.
            flush = pending.takeAll(clientId);
            next = new FollowUp(State.CONNECTED, () -> sendConnect(false), advice.interval());
        }
        client.sendNow(flush);
        return next;
    }

    /**
     * What to do after a reply has been handled: {@code task} after {@code delay} ms (at once,
     * on this thread, when negative), provided the client is still in {@code state} (the
     * application may have disconnected, or handshaken again, from a listener).
     */
    record FollowUp(State state, Runnable task, long delay) {
    }

    /** Runs or schedules {@code next}, if not null and the client is still in its state. */
    void followUp(FollowUp next) {
        if (next == null) {
            return;
        }
        synchronized (client) {
            if (client.stateLocked() != next.state()) {
                return;
            }
            if (next.delay() >= 0) {
                client.scheduleLocked(next.task(), next.delay());
                return;
            }
        }
        next.task().run();
    }

    /** The connect in flight got no reply: the client is unconnected and tries again after a back-off. */
    void connectFailed() {
        synchronized (client) {
            connectInFlight = false;
            cancel(connectTimer);
            State state = client.stateLocked();
            if (state == State.DISCONNECTING || state == State.DISCONNECTED) {
                return;
            }
            client.moveTo(State.UNCONNECTED);
            client.scheduleLocked(() -> sendConnect(false), advice.nextBackoff());
        }
    }

    /**
     * On the client's loop: {@code source} failed to carry {@code messages} (none when the
     * connection that held the connect went away). An unusable current transport is excluded
     * and the same messages go again over the next one; otherwise the application's messages
     * fail, a handshake is tried again after a back-off, and so is a connect.
     */
    void transportFailed(ClientTransport source, Throwable failure, List<Message.Mutable> messages) {
        boolean handshake = false;
        boolean connect = false;
        boolean fallBack = false;
        for (Message.Mutable message : messages) {
            String channel = message.getChannel();
            handshake |= Channel.META_HANDSHAKE.equals(channel);
            connect |= Channel.META_CONNECT.equals(channel);
        }
        synchronized (client) {
            State state = client.stateLocked();
            if (failure instanceof ClientTransport.UnusableException && state != State.DISCONNECTING && state != State.DISCONNECTED
                    && transports.fallBackFrom(source)) {
                ClientTransport transport = transports.current();
                fallBack = true;
                LOG.info("{} unusable ({}), falling back to {}", source.name(), failure.getMessage(), transport.name());
                resendHeldConnectLocked(messages, transport);
            }
            if (messages.isEmpty() && connectInFlight) {
                // The connection that carried the held connect went away.
                connect = true;
            }
        }
        if (fallBack) {
            // The same messages go again over the next transport, at once.
            client.sendNow(new ArrayList<>(messages));
            return;
        }
        LOG.debug("Transport failure for {} messages", messages.size(), failure);
        for (Message.Mutable message : messages) {
            String channel = message.getChannel();
            if (!Channel.META_CONNECT.equals(channel) && !Channel.META_HANDSHAKE.equals(channel)) {
                client.failMessage(message, "transport_failure: " + failure);
            }
        }
        if (handshake) {
            synchronized (client) {
                State state = client.stateLocked();
                if (state == State.HANDSHAKING || state == State.REHANDSHAKING) {
                    client.moveTo(State.REHANDSHAKING);
                    client.scheduleLocked(this::rehandshake, advice.nextBackoff());
                }
            }
        }
        if (connect) {
            connectFailed();
        }
    }

    /** Under the client's lock: no connect is in flight any more, and its timer is off. */
    void stopLocked() {
        connectInFlight = false;
        cancel(connectTimer);
    }

    /**
     * Under the client's lock, after a fall back to {@code transport}: the held connect among
     * {@code messages}, if any, goes again over it, with a fresh wait for its reply.
     */
    private void resendHeldConnectLocked(List<Message.Mutable> messages, ClientTransport transport) {
        for (Message.Mutable message : messages) {
            if (Channel.META_CONNECT.equals(message.getChannel()) && message.getId() != null && message.getId().equals(connectId)) {
                message.put(Message.CONNECTION_TYPE_FIELD, transport.name());
                cancel(connectTimer);
                String id = message.getId();
                long delay = advice.timeout() + maxNetworkDelayMillis;
                connectTimer = loop.schedule(() -> connectTimedOut(id), delay, TimeUnit.MILLISECONDS);
            }
        }
    }

    static void cancel(ScheduledFuture<?> future) {
        if (future != null) {
            future.cancel(false);
        }
    }
}
