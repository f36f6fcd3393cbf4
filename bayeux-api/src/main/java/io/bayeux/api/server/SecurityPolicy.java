package io.bayeux.api.server;

/**
 * The server-wide policy for handshakes and channel operations, consulted before the
 * channel's {@link Authorizer}s. Every method defaults to allowing.
 *
 * <p>The message's {@link ServerMessage#getBayeuxContext() BayeuxContext} tells who is asking:
 * a policy that authenticates handshakes by a bearer token reads
 * {@code message.getBayeuxContext().getHeader("Authorization")}; by a cookie,
 * {@code getCookie(name)}; by address, {@code getRemoteAddress()}. A refused handshake is
 * answered {@code 403::handshake_denied} with the advice {@code reconnect: none}.
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
