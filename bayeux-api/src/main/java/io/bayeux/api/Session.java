package io.bayeux.api;

import java.util.Set;

/** A Bayeux session, seen from either side: it has an id and can be disconnected. */
public interface Session {
    /** The session id, the {@code clientId} of the protocol. */
    String getId();

    /** Whether the session is handshaken and its connection is established. */
    boolean isConnected();

    /** Whether the session has completed the handshake and was not disconnected since. */
    boolean isHandshook();

    /** Disconnects the session. */
    void disconnect();

    void setAttribute(String name, Object value);

    Object getAttribute(String name);

    Set<String> getAttributeNames();

    Object removeAttribute(String name);

    /**
     * Runs {@code batch} so that the messages it sends go out together.
     * The default starts a batch, runs it and ends the batch even when it throws.
     */
    default void batch(Runnable batch) {
        startBatch();
        try {
            batch.run();
        } finally {
            endBatch();
        }
    }

    /** Starts a batch; batches nest. */
    void startBatch();

    /**
     * Ends a batch; the outermost end sends what the batch collected.
     *
     * @return whether this ended the outermost batch
     */
    boolean endBatch();
}
