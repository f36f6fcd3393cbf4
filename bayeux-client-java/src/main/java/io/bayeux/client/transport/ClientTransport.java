package io.bayeux.client.transport;

import io.bayeux.api.Message;
import io.netty.channel.EventLoopGroup;

import java.net.URI;
import java.util.List;

/**
 * A way for a {@code BayeuxClient} to reach the server. Implementations are thread-safe and
 * never block: {@link #send} returns at once and what comes back reaches the {@link Listener}.
 */
public interface ClientTransport {
    /** The transport's Bayeux name: {@code websocket}, {@code long-polling}. */
    String name();

    /** Binds the transport to a server URL, the event loops to use and the listener of one client; called once. */
    void init(URI url, CookieJar cookies, EventLoopGroup group, Listener listener);

    /** Sends messages as one batch. */
    void send(List<Message.Mutable> messages);

    /** Drops the connections; messages in flight are reported as failed. The transport may be used again. */
    void abort();

    /** Releases everything; the transport is not used again. */
    void terminate();

    /** Where a transport reports what happens. Called on I/O threads: must not block. */
    interface Listener {
        /** Messages arrived: replies and deliveries. */
        void onMessages(List<Message.Mutable> messages);

        /**
         * Something failed: {@code messages} are those that may not have reached the server
         * (empty when an idle connection closed).
         */
        void onFailure(Throwable failure, List<Message.Mutable> messages);
    }

    /**
     * The transport cannot be used here, as opposed to a failure of the network: a WebSocket
     * that never worked (its upgrade refused, timed out, or cut before anything arrived on it).
     * The client should use another transport.
     */
    class UnusableException extends Exception {
        public UnusableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The server refused the WebSocket upgrade: the client should use another transport. */
    final class UpgradeRefusedException extends UnusableException {
        public UpgradeRefusedException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
