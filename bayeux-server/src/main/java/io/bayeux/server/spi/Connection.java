package io.bayeux.server.spi;

import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.Scheduler;

import java.util.List;
import java.util.function.Consumer;

/**
 * The core's side of a network connection, made by {@code BayeuxServerImpl.newConnection(Endpoint)}.
 * A transport hands it every batch of messages that arrives and closes it when the network
 * connection goes away. Thread-safe.
 */
public interface Connection {
    /** The endpoint this connection writes to. */
    Endpoint endpoint();

    /**
     * Handles a batch of incoming messages (one HTTP body or WebSocket frame).
     *
     * <p>{@code replies} is told exactly once, on any thread, of the messages to write back for
     * this batch in order: queued messages and the replies, the {@code /meta/connect} reply
     * last. When the batch holds a {@code /meta/connect} that the core decides to hold, that
     * happens later: when the connect times out, a message is queued for the session, or
     * another connect of the same session arrives. The list may be empty.
     *
     * @return a handle that cancels a held batch without replying (the request went away);
     *         cancelling re-arms the session's expiry. Harmless once replied.
     */
    Scheduler.Cancellable handle(List<ServerMessage.Mutable> batch, Consumer<List<ServerMessage>> replies);

    /**
     * Tells the core that the endpoint, having been unwritable, takes bytes again: what waits
     * in the queues of the sessions that push to it goes out. Any thread.
     */
    void writable();

    /**
     * Tells the core that the endpoint has now been unwritable for its transport's stall time
     * ({@link Endpoint#isStalled()}): its reader does not read, and only its own session queue
     * pays for it. Any thread.
     */
    void stalled();

    /**
     * Tells the core that the transport stopped ({@code true}) or resumed ({@code false})
     * reading this connection for the server's sake (it is behind with deliveries, or with
     * what this connection sent): what the client sent meanwhile, its next
     * {@code /meta/connect} included, waits unread, so the sessions that push to it do not
     * expire while it lasts, and get a whole {@code maxInterval} once it ends. Any thread.
     */
    default void heldBack(boolean held) {
    }

    /**
     * Tells the core that the network connection ended (closed, failed, timed out): held
     * batches are cancelled, sessions stop pushing to it, and their expiry is re-armed.
     */
    void close();
}
