package io.bayeux.server.spi;

import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.api.server.ServerMessage;

import java.util.List;

/**
 * Where the histories of channels live when several servers share them (an engine such as
 * Redis): the engine gives each message its position, keeps it, and brings it back to every
 * server that needs it, which delivers it to its subscribers in the order of positions
 * ({@link io.bayeux.server.internal.Histories#deliverFromEngine}). A server without an engine keeps histories in
 * its memory.
 */
public interface HistoryEngine {
    /** Whether the engine keeps the history of {@code channel}; the server keeps the others. */
    boolean handles(String channel);

    /**
     * Takes a message published on a channel with history, frozen, after the server's
     * listeners and extensions. Must not block.
     */
    void publish(String channel, ServerMessage message, HistoryPolicy policy);

    /**
     * Reads what the history of {@code channel} holds after offset {@code after} (every message
     * kept for {@link Long#MIN_VALUE}, none for {@link Long#MAX_VALUE}), as one atomic view.
     * May block, for a bounded time; the server calls it off its event loops.
     *
     * @throws IllegalStateException when the engine cannot answer (unreachable)
     */
    Slice read(String channel, long after, HistoryPolicy policy);

    /** Whether this server receives the channel's messages from the engine now, so that none can be missed. */
    boolean receives(String channel);

    /**
     * A view of one channel's history.
     *
     * @param epoch    the history's epoch
     * @param top      the offset of its last message
     * @param first    the offset of the first message it still keeps ({@code top + 1} when none)
     * @param evicted  why the messages before {@code first} are gone: {@code trimmed} or {@code expired}
     * @param messages the messages asked for, oldest first, each with its offset; each has the
     *                 channel, data and {@code ext} it was published with, no position
     */
    record Slice(String epoch, long top, long first, String evicted, List<Entry> messages) {
    }

    /** One message of a history and its offset. */
    record Entry(long offset, ServerMessage.Mutable message) {
    }
}
