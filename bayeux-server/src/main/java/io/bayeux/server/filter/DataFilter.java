package io.bayeux.server.filter;

import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerSession;

/**
 * Inspects, and possibly replaces, the {@code data} of a published message. Filters are
 * chained by a {@link DataFilterMessageListener}: each receives what the previous one
 * returned.
 *
 * <p>A filter must not change the object it receives in place (it may be shared, for example
 * a constant map published by the server); it returns a new value instead, or the very same
 * object when nothing needs to change. Filters run on the publishing thread, possibly for
 * several publishers at once, so implementations must be thread-safe.
 */
@FunctionalInterface
public interface DataFilter {
    /**
     * Filters the data of a message.
     *
     * @param from the publishing session, or {@code null} when the server publishes
     * @param channel the channel the message is published on (not the wildcard channel the
     *        listener may be registered on)
     * @param data the data to filter, possibly {@code null}
     * @return the data to publish instead: {@code data} itself when unchanged
     * @throws AbortException to reject the message: it is not delivered to anybody, and a
     *         remote publisher receives {@code 404::message_deleted}
     */
    Object filter(ServerSession from, ServerChannel channel, Object data) throws AbortException;

    /** Thrown by a {@link DataFilter} to reject the whole message. */
    class AbortException extends RuntimeException {
        public AbortException() {
            super();
        }

        public AbortException(String message) {
            super(message);
        }

        public AbortException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
