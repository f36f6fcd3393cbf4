package io.bayeux.server.internal;

import io.bayeux.api.Message;

import java.util.Map;

/**
 * {@code /meta/connect}: the first connect after a handshake is answered at once; later ones
 * are held for the timeout (the client may ask for another one in its advice). A reply carries
 * the advice when the client has not had it yet (the first connect, a change of the session's
 * settings or transport), as CometD's server does: clients keep the last advice they got.
 */
final class ConnectHandler implements MetaHandler {
    private final BayeuxServerImpl server;

    ConnectHandler(BayeuxServerImpl server) {
        this.server = server;
    }

    @Override
    public void handle(Exchange exchange) {
        ServerSessionImpl session = exchange.session;
        session.transportName(exchange.connection.endpoint().transportName());
        boolean first = session.firstConnect();
        exchange.reply.setSuccessful(true);
        if (session.takeAdvice()) {
            Advice.retry(server, session, exchange.reply);
        }
        if (first || session.localSession() != null) {
            // The first connect is answered at once (clients often ask so, with a timeout of 0),
            // and the client connects again at once: its next connect is the one held.
            exchange.connectsAgain = first && session.localSession() == null;
            return;
        }
        long timeout = session.timeout();
        Map<String, Object> advice = exchange.message.getAdvice();
        if (advice != null && advice.get(Message.TIMEOUT_FIELD) instanceof Number requested) {
            timeout = Math.max(0, Math.min(timeout, requested.longValue()));
        }
        exchange.holdMillis = timeout;
    }
}
