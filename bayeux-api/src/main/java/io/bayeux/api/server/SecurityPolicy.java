package io.bayeux.api.server;

/**
 * The server-wide policy for handshakes and channel operations, consulted before the
 * channel's {@link Authorizer}s. Every method defaults to allowing.
 */
public interface SecurityPolicy {
    default boolean canHandshake(BayeuxServer server, ServerSession session, ServerMessage message) {
        return true;
    }

    default boolean canCreate(BayeuxServer server, ServerSession session, String channelId, ServerMessage message) {
        return true;
    }

    default boolean canSubscribe(BayeuxServer server, ServerSession session, ServerChannel channel, ServerMessage message) {
        return true;
    }

    default boolean canPublish(BayeuxServer server, ServerSession session, ServerChannel channel, ServerMessage message) {
        return true;
    }
}
