package io.bayeux.api.server;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * What the network tells about the request that carried a message: who is connecting (remote
 * address, headers, cookies), where (local address, URL, TLS) and how (protocol, transport).
 * It is what a {@link SecurityPolicy} reads to authenticate a handshake by a bearer token in a
 * header or a cookie, or to allow only some addresses.
 *
 * <p>For long-polling and callback-polling it describes the HTTP request that carried the
 * message; for WebSocket, the upgrade request that opened the connection (every message on
 * that connection shares it). Reach it through {@link ServerMessage#getBayeuxContext()} (the
 * message's own, on any thread) or {@link BayeuxServer#getContext()} (the message being handled
 * on the current thread). Messages made on the server (local sessions,
 * {@link BayeuxServer#newMessage()}) have none.
 *
 * <p>Immutable and thread-safe. Header names are case-insensitive.
 */
public interface BayeuxContext {
    /** The address of the peer (the client, or the last proxy before this server). */
    InetSocketAddress getRemoteAddress();

    /** The address of this server that the peer connected to. */
    InetSocketAddress getLocalAddress();

    /** The first value of a request header, or {@code null}. */
    String getHeader(String name);

    /** Every value of a request header, in order; empty when absent. */
    List<String> getHeaderValues(String name);

    /** The value of a cookie the request carried, or {@code null}. */
    String getCookie(String name);

    /** The first value of a query parameter of the request URL, or {@code null}. */
    String getParameter(String name);

    /** Every value of a query parameter, in order; empty when absent. */
    List<String> getParameterValues(String name);

    /** The full URL of the request, query included, e.g. {@code https://example.com/cometd/connect?x=1}. */
    String getURL();

    /** The path the Bayeux endpoint is served on, e.g. {@code /cometd}. */
    String getContextPath();

    /** The HTTP version of the request, e.g. {@code HTTP/1.1}. */
    String getProtocol();

    /** Whether the request came over TLS. */
    boolean isSecure();

    /** The Bayeux transport that carried the message: {@code websocket}, {@code long-polling} or {@code callback-polling}. */
    String getTransportName();
}
