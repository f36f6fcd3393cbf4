package io.bayeux.api.server;

import io.bayeux.api.client.ClientSession;

/**
 * A client that lives inside the server: it handshakes, subscribes and publishes through the
 * same rules as remote clients, without a network. Services use one to act on channels.
 */
public interface LocalSession extends ClientSession {
    /** The server-side session, or {@code null} before the handshake. */
    ServerSession getServerSession();
}
