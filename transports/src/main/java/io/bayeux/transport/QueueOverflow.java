package io.bayeux.transport;

/** What happens when a session's queue is full because its client does not keep up. */
public enum QueueOverflow {
    /** The oldest queued message is dropped to make room for the new one. */
    DROP_OLDEST,
    /** The new message is dropped. */
    DROP_NEWEST,
    /** The client is disconnected: it will re-handshake and start afresh. */
    DISCONNECT
}
