package io.bayeux.transport.internal;

import io.bayeux.server.BayeuxServerConfig;

import java.util.ArrayList;
import java.util.List;

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

    /**
     * The transports a server offers in handshake replies when its Bayeux configuration does not
     * name them: {@link BayeuxServerConfig#DEFAULT_ALLOWED_TRANSPORTS}, without WebSocket when it
     * is off, with callback-polling when JSONP is on.
     */
    public static List<String> served(boolean websocket, boolean jsonp) {
        List<String> transports = new ArrayList<>(BayeuxServerConfig.DEFAULT_ALLOWED_TRANSPORTS);
        if (!websocket) {
            transports.remove(WEBSOCKET);
        }
        if (jsonp) {
            transports.add(CALLBACK_POLLING);
        }
        return List.copyOf(transports);
    }
}
