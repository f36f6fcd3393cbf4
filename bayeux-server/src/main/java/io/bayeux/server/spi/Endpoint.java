package io.bayeux.server.spi;

import io.bayeux.api.Promise;
import io.bayeux.api.server.BayeuxContext;
import io.bayeux.api.server.ServerMessage;

import java.net.InetSocketAddress;
import java.util.List;

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
     * Writes messages to the client as one unit (one frame). Must not block. The core calls it
     * from any thread, and for one session never again before {@code written} is completed:
     * that completion is what sends the next batch, so an endpoint that completes it only
     * once the bytes have left gives the session back-pressure for free.
     *
     * <p>Only called when {@link #canPush()} is true.
     */
    default void write(List<ServerMessage> messages, Promise<Void> written) {
        written.fail(new UnsupportedOperationException(transportName() + " cannot push"));
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
