package io.bayeux.server.internal;

import io.bayeux.api.Bayeux;
import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.Promise;
import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.common.AbstractClientSession;
import io.bayeux.server.spi.Endpoint;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An in-process client of the server: its messages go through the same handling as remote
 * ones (extensions, security, listeners) over an in-memory connection, and what the server
 * delivers to it is dispatched to its channel listeners on the delivering thread.
 */
final class LocalSessionImpl extends AbstractClientSession implements LocalSession {
    private final BayeuxServerImpl server;
    private final String idHint;
    private final ConnectionImpl connection;
    private volatile ServerSessionImpl serverSession;

    LocalSessionImpl(BayeuxServerImpl server, String idHint) {
        this.server = server;
        this.idHint = idHint;
        this.connection = new ConnectionImpl(server, new LocalEndpoint());
    }

    /** The session the handshake handler makes for this local session. */
    ServerSessionImpl newServerSession(String id) {
        return new ServerSessionImpl(server, id, this);
    }

    @Override
    public ServerSession getServerSession() {
        return serverSession;
    }

    @Override
    public String getId() {
        ServerSessionImpl session = serverSession;
        return session == null ? null : session.getId();
    }

    @Override
    public boolean isConnected() {
        ServerSessionImpl session = serverSession;
        return session != null && session.isConnected();
    }

    @Override
    public boolean isHandshook() {
        ServerSessionImpl session = serverSession;
        return session != null && session.isHandshook();
    }

    @Override
    public void handshake(Map<String, Object> fields, MessageListener callback) {
        if (isHandshook()) {
            throw new IllegalStateException("Already handshaken: " + this);
        }
        Message.Mutable message = newMessage();
        if (fields != null) {
            message.putAll(fields);
        }
        message.setChannel(Channel.META_HANDSHAKE);
        message.put(Message.VERSION_FIELD, Bayeux.VERSION);
        send(message, reply -> {
            if (reply.isSuccessful()) {
                serverSession = server.sessionImpl(reply.getClientId());
            }
            if (callback != null) {
                callback.onMessage(reply);
            }
        });
    }

    @Override
    public void disconnect(MessageListener callback) {
        if (!isHandshook()) {
            return;
        }
        Message.Mutable message = newMessage();
        message.setChannel(Channel.META_DISCONNECT);
        send(message, reply -> {
            serverSession = null;
            if (callback != null) {
                callback.onMessage(reply);
            }
        });
    }

    @Override
    protected Message.Mutable newMessage() {
        return new ServerMessageImpl();
    }

    @Override
    protected void sendBatch(List<Message.Mutable> messages) {
        ServerSessionImpl session = serverSession;
        List<ServerMessage.Mutable> batch = new ArrayList<>(messages.size());
        for (Message.Mutable message : messages) {
            ServerMessage.Mutable serverMessage = message instanceof ServerMessage.Mutable m ? m : new ServerMessageImpl(message);
            if (session != null && !Channel.META_HANDSHAKE.equals(serverMessage.getChannel())) {
                serverMessage.setClientId(session.getId());
            }
            batch.add(serverMessage);
        }
        connection.handle(batch, replies -> replies.forEach(this::receiveCopy));
    }

    private void receiveCopy(ServerMessage message) {
        receive(new ServerMessageImpl(message));
    }

    /** Called when the server removes the session. */
    void removed() {
        serverSession = null;
    }

    @Override
    public String toString() {
        return "LocalSession[" + idHint + ", " + serverSession + "]";
    }

    /** Delivers what the server pushes straight to this session's listeners. */
    final class LocalEndpoint implements Endpoint {
        /** The local session whose endpoint this is. */
        LocalSessionImpl session() {
            return LocalSessionImpl.this;
        }

        @Override
        public String transportName() {
            return "local";
        }

        @Override
        public boolean canPush() {
            return true;
        }

        @Override
        public void write(List<ServerMessage> messages, Promise<Void> written) {
            try {
                messages.forEach(LocalSessionImpl.this::receiveCopy);
            } finally {
                written.succeed(null);
            }
        }

        @Override
        public String userAgent() {
            return "local:" + idHint;
        }
    }
}
