package io.bayeux.server.internal;

/** Handles the messages of one meta channel, filling the exchange's reply. */
interface MetaHandler {
    void handle(Exchange exchange);
}
