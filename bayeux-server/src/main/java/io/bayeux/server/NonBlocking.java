package io.bayeux.server;

/**
 * Marks an extension (of the server or of a session) that never blocks and does little per
 * message, so that the server may run it on a connection's event loop.
 *
 * <p>When the hold or the gathering time of a long-polling {@code /meta/connect} ends on the
 * connection's event loop, the reply is made and written right there if no application code
 * takes part in it: every extension of the server and of the session is {@code NonBlocking},
 * and the session has no {@link io.bayeux.api.server.ServerSession.DeQueueListener} and no
 * {@link io.bayeux.api.server.ServerSession.HeartBeatListener}. Otherwise the reply is made on
 * the executor, as application code always is; the event loop only hands it over.
 */
public interface NonBlocking {
}
