package io.bayeux.server.spi;

import io.bayeux.api.Promise;
import io.bayeux.api.server.BayeuxContext;
import io.bayeux.api.server.ServerMessage;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;

/**
 * What a network transport implements for each connection: the way out to the client, and
 * what the core may want to know about the peer. The core never sees the network library.
 */
public interface Endpoint {
    /** The transport's name as it appears in {@code connectionType}: {@code websocket}, {@code long-polling}, ... */
    String transportName();

    /**
     * Whether the core may {@linkplain #write write} queued messages at any time (WebSocket),
     * rather than only in the reply to a request (long-polling).
     */
    boolean canPush();

    /**
     * Writes messages to the client as one unit (one frame). Must not block. Without an
     * {@link #eventLoop()}, the core calls it from any thread, and for one session never again
     * before {@code written} is completed:
     * that completion is what sends the next batch, so an endpoint that completes it only
     * once the bytes have left gives the session back-pressure for free.
     *
     * <p>Only called when {@link #canPush()} is true.
     */
    default void write(List<ServerMessage> messages, Promise<Void> written) {
        written.fail(new UnsupportedOperationException(transportName() + " cannot push"));
    }

    /**
     * On the {@link #eventLoop()}: writes {@code batch} as one unit, unflushed, like
     * {@link #write}, telling {@code failure} only if the write fails. An endpoint that
     * overrides it saves a completion object per write; by default it calls {@link #write}.
     */
    default void push(List<ServerMessage> batch, PushFailure failure) {
        write(batch, new Promise<>() {
            @Override
            public void fail(Throwable cause) {
                failure.pushFailed(Endpoint.this, batch, cause);
            }
        });
    }

    /** Hears of a {@link #push} that failed: its batch was not written. */
    @FunctionalInterface
    interface PushFailure {
        void pushFailed(Endpoint endpoint, List<ServerMessage> batch, Throwable failure);
    }

    /**
     * The single thread that owns this endpoint's writes (its network event loop), or
     * {@code null} when {@link #write} may be called from any thread and paces the session
     * by completing {@code written} once the bytes have left.
     *
     * <p>When not null, the core pushes queued messages only from that executor, in rounds:
     * in one round it asks {@link #isWritable()}, calls {@link #write} (which must not flush)
     * for each session that has something due, then {@link #flush()} once for the endpoints it
     * wrote to; several publishes that arrive meanwhile share the round, so one system call
     * carries everything a connection got in it. A write's {@code written} only needs to be
     * failed when the write fails. The transport tells the core, through
     * {@code Connection.writable()}, when a connection that was not writable is again.
     */
    default Executor eventLoop() {
        return null;
    }

    /**
     * Whether the network would take more bytes now without piling them up; consulted, on the
     * {@link #eventLoop()}, before each push. A reader that stops reading becomes unwritable:
     * its messages then wait in its bounded session queue.
     */
    default boolean isWritable() {
        return true;
    }

    /**
     * Whether the endpoint has been {@linkplain #isWritable() unwritable} for longer than the
     * transport's stall time: a reader that does not read. Its session queue fills and
     * overflows as its policy says; until then, a reader with many messages waiting counts as
     * one the server is behind with, and publishers are slowed down rather than its messages
     * dropped.
     */
    default boolean isStalled() {
        return false;
    }

    /** Sends what {@link #write} buffered; called on the {@link #eventLoop()} once per round. */
    default void flush() {
    }

    /**
     * Runs {@code task} after {@code delayMillis} on the endpoint's own timer (its event loop),
     * or returns {@code null} when it has none: the server's scheduler is used then. The core
     * times a held {@code /meta/connect} with it; {@code task} only hands work to the executor.
     *
     * @return the timer's future, which the core cancels ({@code cancel(false)}) when the hold
     *         ends first: returned as it is, every held connect costs no wrapper object
     */
    default Future<?> schedule(Runnable task, long delayMillis) {
        return null;
    }

    /**
     * Like {@link #schedule}, for a timer that is never cancelled and may run up to
     * {@code slackMillis} late: the endpoint may run it together with its loop's other timers
     * due about then, one wake-up for them all. The core times the end of a long-polling
     * connect's gather time with it ({@code BayeuxServerConfig.connectGather}).
     *
     * @return false when the endpoint has no timer of its own: the server's scheduler is used then
     */
    default boolean scheduleGrouped(Runnable task, long delayMillis, long slackMillis) {
        return schedule(task, delayMillis) != null;
    }

    /** The User-Agent of the client, or {@code null}. */
    default String userAgent() {
        return null;
    }

    /**
     * The browser this connection comes from, from its browser cookie ({@code BAYEUX_BROWSER}
     * by default), or {@code null} when it names none. A session that belongs to a browser
     * ({@link #sessionBrowserId()} at its handshake) is refused to every connection whose
     * browser is not that same one, a {@code null} browser included; a browser may hold only
     * {@code maxSessionsPerBrowser} long-polling connects at once.
     */
    default String browserId() {
        return null;
    }

    /**
     * The browser a session that handshakes over this endpoint belongs to: the cookie the client
     * sent, or the one the transport sets in its answer when it sent none. Defaults to
     * {@link #browserId()}.
     */
    default String sessionBrowserId() {
        return browserId();
    }

    /**
     * Whether this connection came without a browser cookie and may adopt, once and within
     * seconds of its handshake, a session whose handshake reply set its cookie; {@code false} by
     * default. A WebSocket upgrade without a cookie says yes: Faye's client opens its WebSocket
     * in parallel with its long-polling handshake, before it has the cookie.
     */
    default boolean adoptsSessions() {
        return false;
    }

    /**
     * The {@linkplain io.bayeux.server.Scheduler#now() scheduler time} at which the network
     * connection under this endpoint was accepted, or {@link Long#MAX_VALUE} (the default) when
     * the transport does not know: the connection then counts as opened when the core first sees
     * it. A WebSocket's upgrade request may be read long after its connection was accepted (a
     * busy client or server), and whether it may {@linkplain #adoptsSessions() adopt} a session
     * depends on when it was opened.
     */
    default long acceptedAt() {
        return Long.MAX_VALUE;
    }

    /** The address of the peer, or {@code null}. */
    default InetSocketAddress remoteAddress() {
        return null;
    }

    /**
     * What the network tells about the request this endpoint answers (long-polling) or the
     * upgrade that opened it (WebSocket), or {@code null}. Every message that arrives through
     * the endpoint carries it ({@code ServerMessage.getBayeuxContext()}).
     */
    default BayeuxContext bayeuxContext() {
        return null;
    }
}
