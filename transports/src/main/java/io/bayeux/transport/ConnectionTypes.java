package io.bayeux.transport;

/**
 * The names of the transports this module serves, as Bayeux spells them in
 * {@code supportedConnectionTypes}, {@code connectionType} and {@code allowedTransports}.
 */
public final class ConnectionTypes {
    /** WebSocket, upgraded from a request to the endpoint path. */
    public static final String WEBSOCKET = "websocket";
    /** Long-polling: each request POSTs a JSON array of messages. */
    public static final String LONG_POLLING = "long-polling";
    /** Callback-polling (JSONP): each request GETs with the messages in its query, for old clients without CORS. */
    public static final String CALLBACK_POLLING = "callback-polling";

    private ConnectionTypes() {
    }
}
