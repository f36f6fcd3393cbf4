package io.bayeux.server.internal;

import io.bayeux.api.server.ServerMessage;

/**
 * One incoming message on its way through the server: the request, its reply, the session it
 * belongs to, and what the connect handler decided about holding it. Confined to the thread
 * that handles the batch, then to the one that completes it.
 */
final class Exchange {
    final ConnectionImpl connection;
    final ServerMessage.Mutable message;
    final ServerMessage.Mutable reply;
    ServerSessionImpl session;
    /** Whether the message is a {@code /meta/connect}. */
    boolean connect;
    /** How long a connect may be held, or -1 to reply at once. */
    long holdMillis = -1;
    /**
     * Whether a connect answered at once is followed by another at once: the first connect of
     * a client that long-polls, whose next connect is the one that will be held.
     */
    boolean connectsAgain;

    Exchange(ConnectionImpl connection, ServerMessage.Mutable message, ServerMessage.Mutable reply) {
        this.connection = connection;
        this.message = message;
        this.reply = reply;
    }

    /** Fails the reply with a Bayeux error such as {@code 403::subscribe_denied}. */
    Exchange error(String error) {
        reply.setSuccessful(false);
        reply.put(ServerMessage.ERROR_FIELD, error);
        return this;
    }

    @Override
    public String toString() {
        return "Exchange[" + message.getChannel() + ", " + session + "]";
    }
}
