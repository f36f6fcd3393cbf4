package io.bayeux.server.internal;

/** {@code /meta/disconnect}: the session goes, its queue with it. */
final class DisconnectHandler implements MetaHandler {
    private final BayeuxServerImpl server;

    DisconnectHandler(BayeuxServerImpl server) {
        this.server = server;
    }

    @Override
    public void handle(Exchange exchange) {
        exchange.reply.setSuccessful(true);
        server.removeSession(exchange.session, exchange.message, false);
    }
}
