package io.bayeux.server.spi;

import io.bayeux.server.QueueOverflow;

/**
 * Hears what a server does, for metrics: installed with
 * {@code BayeuxServerImpl.observe(ServerObserver)}, at most one per server. A server with none
 * installed (the default) calls nothing and measures nothing: each place that reports checks
 * for {@code null} first, and reads no clock.
 *
 * <p>Contract for implementations: called on event loops and on the executor, concurrently,
 * often once per message or frame; each method must be quick, must not block, must not throw,
 * and should not allocate nor contend between threads (count into {@code LongAdder}s or
 * Micrometer counters, which are adders). Labels arrive as strings the core keeps (transport
 * names, meta channel names, Bayeux errors): an observer that maps them to tags should cache
 * the mapping. Every method does nothing by default, so an observer implements what it needs.
 */
public interface ServerObserver {
    /** Why a session went away. */
    enum DisconnectCause {
        /** Its client sent {@code /meta/disconnect}. */
        CLIENT,
        /** It sent nothing for {@code maxInterval}: the sweeper removed it. */
        EXPIRY,
        /** Its queue overflowed, with the {@link QueueOverflow#DISCONNECT} policy. */
        OVERFLOW,
        /** The server removed it with another error for its client. */
        ERROR,
        /** The application (or the server stopping) removed it. */
        SERVER
    }

    /**
     * A handshake was answered over {@code transport}.
     *
     * @param error null when it succeeded, else the Bayeux error of the refusal ({@code code:args:message})
     */
    default void handshake(String transport, String error) {
    }

    /** A session that had handshaken over {@code transport} (its latest transport) was removed. */
    default void sessionRemoved(String transport, DisconnectCause cause) {
    }

    /** A batch of {@code messages} messages arrived from clients over {@code transport}. */
    default void received(String transport, int messages) {
    }

    /** A client's publish over {@code transport} was accepted (it went to the channel's subscribers). */
    default void published(String transport) {
    }

    /** A client's publish was refused with the Bayeux error {@code error} ({@code code:args:message}). */
    default void publishRefused(String error) {
    }

    /**
     * A meta message was handled: {@code channel} is one of the five {@code /meta/*} channels
     * of the protocol, {@code nanos} the time from its arrival to the end of its handling (a
     * held {@code /meta/connect} counts until it is held, not until it is answered).
     */
    default void metaHandled(String channel, long nanos) {
    }

    /**
     * {@code messages} queued messages are about to be flushed to the network over
     * {@code transport}, in frames or responses: reported right before the flush, so a write
     * that fails afterwards was counted. From an event loop's push round (WebSocket) once per
     * round and transport for all the frames the round flushes; otherwise once per frame or
     * response.
     *
     * @param oldestNanos  the {@link System#nanoTime()} at which the one that waited longest
     *                     arrived from its publisher, or 0 when none came from a client after the
     *                     observer was installed (server-side messages)
     * @param flushedNanos the {@link System#nanoTime()} right before the flush, or 0 when
     *                     {@code oldestNanos} is 0 (then no clock was read)
     */
    default void delivered(String transport, int messages, long oldestNanos, long flushedNanos) {
    }

    /**
     * A frame or response took messages from a session's queue, which held {@code depth}
     * messages then. Every take is reported but on an event loop's push path (WebSocket), where
     * one frame in {@value #QUEUE_DEPTH_SAMPLING} of each loop is.
     */
    default void queueDepth(int depth) {
    }

    /** On an event loop's push path, one frame in this many reports its {@link #queueDepth}. */
    int QUEUE_DEPTH_SAMPLING = 64;

    /** A session's queue was full and {@code policy} applied to a message. */
    default void queueOverflowed(QueueOverflow policy) {
    }

    /**
     * A subscription asked to recover from a channel's history (a position, or a replay id).
     *
     * @param outcome  {@code recovered}; or why not: the reason the reply gives ({@code epoch},
     *                 {@code evicted}, ...), {@code refused} (a bad replay id) or {@code unavailable}
     *                 (the history engine could not answer)
     * @param replayed how many messages it was given from the history
     */
    default void recovery(String outcome, long replayed) {
    }

    /** Bytes arrived from the network. */
    default void bytesRead(long bytes) {
    }

    /** Bytes were handed to the network. */
    default void bytesWritten(long bytes) {
    }
}
