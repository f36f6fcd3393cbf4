package io.bayeux.transport.internal.http;

import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.transport.ServerSettings;
import io.bayeux.transport.internal.LoopOutbox;
import io.bayeux.transport.internal.websocket.WebSocketShared;

import io.bayeux.transport.HttpRoute;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * What every HTTP connection of one server shares, made once per server and immutable: the
 * endpoint it routes to and the transports that answer there, so that a connection's
 * {@link HttpRequestHandler} keeps one reference instead of a copy of each. Thread-safe.
 */
public final class HttpShared {
    /** The endpoint path. */
    final String path;
    /** The endpoint path followed by a slash: paths under it are Bayeux too. */
    final String endpointPrefix;
    /** Whether WebSocket upgrades are served (see {@link ServerSettings#servesWebSocket()}). */
    final boolean servesWebSocket;
    /** The transports the core allows, for the message that refuses an upgrade. */
    final List<String> allowedTransports;
    final LongPolling longPolling;
    /** The JSONP transport, or null when it is off. */
    final CallbackPolling callbackPolling;
    final StaticFiles staticFiles;
    /** The application's routes. */
    final HttpRoutes routes;
    /** What an upgraded connection keeps. */
    final WebSocketShared websocket;

    /**
     * The HTTP side of a server with {@code settings}: messages go to {@code bayeux} and are
     * handled on {@code executor}; responses written from other threads go through
     * {@code outboxes}, one round per event loop; an upgraded connection keeps {@code websocket};
     * requests to one of {@code routes}' paths are answered by it.
     */
    public HttpShared(BayeuxServerImpl bayeux, ServerSettings settings, Executor executor, StaticResources statics,
                      BrowserCookie browserCookie, LoopOutbox.Registry outboxes, WebSocketShared websocket,
                      Map<String, HttpRoute> routes) {
        this.path = settings.path();
        this.endpointPrefix = path.endsWith("/") ? path : path + "/";
        this.servesWebSocket = settings.servesWebSocket();
        this.allowedTransports = settings.bayeux().allowedTransports();
        PollingShared polling = new PollingShared(bayeux, executor, browserCookie, outboxes, path);
        this.longPolling = new LongPolling(polling);
        this.callbackPolling = settings.jsonp() ? new CallbackPolling(polling) : null;
        this.staticFiles = new StaticFiles(statics, executor);
        this.routes = new HttpRoutes(routes, executor);
        this.websocket = websocket;
    }

    /** Whether {@code path} is the endpoint's or one below it. */
    boolean isEndpoint(String path) {
        return path.equals(this.path) || path.startsWith(endpointPrefix);
    }
}
