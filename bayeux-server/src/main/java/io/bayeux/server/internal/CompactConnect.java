package io.bayeux.server.internal;

import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.spi.Endpoint;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How a held {@code /meta/connect} is kept small, since every idle session has one: its
 * request and reply share the strings the session and connection have already; a plain
 * request is dropped and {@linkplain #rebuildConnect made again} from its id when the hold
 * ends ({@link PendingBatch#compact}); a plain reply is emptied and its fields written again
 * then ({@link #deferReply}, {@link #restoreReply}). What a client sees does not change.
 *
 * <p>Stateless; each method works on the one exchange it is given, on the thread that holds
 * or completes it.
 */
final class CompactConnect {
    private CompactConnect() {
    }

    /**
     * A connect about to be held keeps its request and reply for as long as the hold, on every
     * idle connection: their channel, client id and connection type become the equal strings
     * every session or connection already has, so that the held copies (parsed from the request)
     * can go. Nothing else changes: the values stay equal, and the maps keep their entries.
     */
    static void shareStrings(Exchange connect, ServerSessionImpl session, Endpoint endpoint) {
        shareString(connect.message, Message.CHANNEL_FIELD, Channel.META_CONNECT);
        shareString(connect.message, Message.CLIENT_ID_FIELD, session.getId());
        shareString(connect.message, Message.CONNECTION_TYPE_FIELD, endpoint.transportName());
        shareString(connect.reply, Message.CHANNEL_FIELD, Channel.META_CONNECT);
        shareString(connect.reply, Message.CLIENT_ID_FIELD, session.getId());
    }

    /**
     * Whether {@code request} is what {@link #rebuildConnect} makes again: the fields channel,
     * client id (the session's), connection type (this endpoint's) and an optional String or
     * Number id, nothing else; the endpoint's context; neither lazy nor associated.
     */
    static boolean isPlainConnect(ServerMessage.Mutable request, ServerSessionImpl session, Endpoint endpoint) {
        if (!(request instanceof ServerMessageImpl impl) || impl.getClass() != ServerMessageImpl.class || impl.isFrozen()
                || impl.isLazy() || impl.getAssociated() != null || impl.getBayeuxContext() != endpoint.bayeuxContext()) {
            return false;
        }
        Object id = impl.get(Message.ID_FIELD);
        int size = id == null ? 3 : 4;
        return impl.size() == size
                && (id == null || id instanceof String || id instanceof Number)
                && Channel.META_CONNECT.equals(impl.get(Message.CHANNEL_FIELD))
                && session.getId().equals(impl.get(Message.CLIENT_ID_FIELD))
                && Objects.equals(endpoint.transportName(), impl.get(Message.CONNECTION_TYPE_FIELD));
    }

    /**
     * A held connect kept {@linkplain PendingBatch#compact compact}, made again: the request as
     * {@link #isPlainConnect} found it, and its reply as the server made it (its connect fields
     * are written when the hold ends, as for every {@linkplain #deferReply deferred} reply).
     */
    static Exchange rebuildConnect(ConnectionImpl connection, ServerSessionImpl session, Object id) {
        Endpoint endpoint = connection.endpoint();
        ServerMessageImpl request = new ServerMessageImpl();
        request.put(Message.CHANNEL_FIELD, Channel.META_CONNECT);
        request.put(Message.CLIENT_ID_FIELD, session.getId());
        request.put(Message.CONNECTION_TYPE_FIELD, endpoint.transportName());
        if (id != null) {
            request.put(Message.ID_FIELD, id);
        }
        if (endpoint.bayeuxContext() != null) {
            request.setBayeuxContext(endpoint.bayeuxContext());
        }
        Exchange exchange = new Exchange(connection, request, connection.server().dispatcher().newReply(request));
        exchange.session = session;
        exchange.connect = true;
        return exchange;
    }

    /**
     * A held connect's reply is kept empty while the connect is held, when it is what the
     * connect handler made of the request (channel, client id, id, {@code successful}, nothing
     * else: no advice, which a client has once and keeps): its entries are made again when the
     * hold ends ({@link #restoreReply}). What is written to the reply meanwhile (a removed
     * session's error and advice) is kept, and completed as before.
     *
     * @return whether the reply was emptied
     */
    static boolean deferReply(Exchange connect) {
        if (!(connect.reply instanceof ServerMessageImpl reply) || reply.isFrozen() || reply.getAdvice() != null) {
            return false;
        }
        Map<String, Object> expected = new HashMap<>(8);
        replyFields(connect.message, expected);
        expected.put(Message.SUCCESSFUL_FIELD, Boolean.TRUE);
        if (reply.size() != expected.size()) {
            return false;
        }
        for (Map.Entry<String, Object> field : expected.entrySet()) {
            if (!field.getValue().equals(reply.get(field.getKey()))) {
                return false;
            }
        }
        reply.clear();
        return true;
    }

    /**
     * The fields a reply takes from its request (as the server's newReply gives them): channel,
     * client id, id; put into {@code reply} where it has none.
     */
    private static void replyFields(ServerMessage request, Map<String, Object> reply) {
        if (request.get(Message.CHANNEL_FIELD) instanceof String channel) {
            reply.putIfAbsent(Message.CHANNEL_FIELD, channel);
            if (channel.startsWith(Channel.META + "/") && request.get(Message.CLIENT_ID_FIELD) instanceof String clientId) {
                reply.putIfAbsent(Message.CLIENT_ID_FIELD, clientId);
            }
        }
        Object id = request.get(Message.ID_FIELD);
        if (id instanceof String || id instanceof Number) {
            reply.putIfAbsent(Message.ID_FIELD, id);
        }
    }

    /**
     * The hold of a connect whose reply was {@linkplain #deferReply emptied} ends: its fields are
     * written again, what is there already kept; with the advice when the session's settings
     * changed during the hold and nothing else advised the client.
     */
    static void restoreReply(Exchange connect, ServerSessionImpl session) {
        ServerMessage.Mutable reply = connect.reply;
        replyFields(connect.message, reply);
        reply.putIfAbsent(Message.SUCCESSFUL_FIELD, Boolean.TRUE);
        if (reply.getAdvice() == null && !session.isRemoved() && session.takeAdvice()) {
            Advice.retry(session.server(), session, reply);
        }
    }

    private static void shareString(ServerMessage.Mutable message, String field, String shared) {
        if (shared != null && message instanceof ServerMessageImpl impl && !impl.isFrozen()) {
            Object value = impl.get(field);
            if (value != shared && shared.equals(value)) {
                impl.put(field, shared);
            }
        }
    }
}
