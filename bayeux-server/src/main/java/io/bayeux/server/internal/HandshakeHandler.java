package io.bayeux.server.internal;

import io.bayeux.api.Bayeux;
import io.bayeux.api.Message;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** {@code /meta/handshake}: negotiates version and transports, then registers the session. */
final class HandshakeHandler implements MetaHandler {
    private final BayeuxServerImpl server;

    HandshakeHandler(BayeuxServerImpl server) {
        this.server = server;
    }

    @Override
    public void handle(Exchange exchange) {
        ServerSessionImpl session = exchange.session;
        Message.Mutable reply = exchange.reply;
        List<String> allowed = server.getAllowedTransports();
        reply.put(Message.VERSION_FIELD, Bayeux.VERSION);
        reply.put(Message.MIN_VERSION_FIELD, Bayeux.VERSION);
        reply.put(Message.SUPPORTED_CONNECTION_TYPES_FIELD, allowed);

        Object version = exchange.message.get(Message.VERSION_FIELD);
        if (version != null && !(version instanceof String v && (v.equals("1") || v.startsWith("1.")))) {
            exchange.error("400:" + version + ":version_unsupported");
            Advice.none(reply);
            return;
        }
        if (exchange.connection.localSession() == null) {
            Object types = exchange.message.get(Message.SUPPORTED_CONNECTION_TYPES_FIELD);
            if (types != null && commonTransports(types, allowed).isEmpty()) {
                exchange.error("403:" + String.join(",", allowed) + ":unsupported_connection_types");
                Advice.none(reply);
                return;
            }
        }
        boolean allowedByPolicy;
        try {
            allowedByPolicy = server.getSecurityPolicy().canHandshake(server, session, exchange.message);
        } catch (RuntimeException x) {
            server.logListenerFailure(server.getSecurityPolicy(), x);
            allowedByPolicy = false;
        }
        if (!allowedByPolicy) {
            exchange.error("403::handshake_denied");
            if (reply.getAdvice() == null || !reply.getAdvice().containsKey(Message.RECONNECT_FIELD)) {
                Advice.none(reply);
            }
            return;
        }
        session.handshaken(exchange.connection.endpoint());
        server.addSession(session, exchange.message);
        reply.setSuccessful(true);
        reply.setClientId(session.getId());
        Map<String, Object> ext = exchange.message.getExt();
        if (server.histories().replayDialectOn() || (ext != null && Boolean.TRUE.equals(ext.get(Recovery.REPLAY_FIELD)))) {
            // The replay extension of Salesforce's Streaming API: announced, as Salesforce does,
            // when a channel speaks it (some of its clients turn it on only when told), echoed when asked.
            reply.getExt(true).put(Recovery.REPLAY_FIELD, true);
        }
        Advice.retry(server, session, reply);
    }

    private static List<String> commonTransports(Object types, List<String> allowed) {
        List<String> result = new ArrayList<>();
        if (types instanceof List<?> list) {
            for (Object type : list) {
                if (type instanceof String name && allowed.contains(name)) {
                    result.add(name);
                }
            }
        }
        return result;
    }
}
