package io.bayeux.server;

/**
 * What happens when a session's queue is full because its client does not keep up: a protocol
 * rule, set with {@link BayeuxServerConfig.Builder#queueOverflow} and applied by the server
 * core. A session with acknowledged delivery is always disconnected.
 */
public enum QueueOverflow {
    /** The oldest queued message is dropped to make room for the new one; nobody is told. */
    DROP_OLDEST,
    /** The new message is dropped; nobody is told. */
    DROP_NEWEST,
    /**
     * The default: the session is removed and its client told {@code 409::queue_full} with the
     * advice to handshake again; a client with recovery then gets back from the channels'
     * history what it missed, and learns of the channels it cannot recover.
     */
    DISCONNECT
}
