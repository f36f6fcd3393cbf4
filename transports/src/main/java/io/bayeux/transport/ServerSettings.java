package io.bayeux.transport;

import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.transport.internal.ConnectionTypes;
import io.bayeux.transport.internal.http.BrowserCookie;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Everything a {@link NettyBayeuxServer} was built with, frozen by
 * {@link NettyBayeuxServer.Builder#build()}: an immutable value, safe to share between threads,
 * that later calls on the builder leave unchanged. The handlers of the pipeline take their
 * settings from it. The defaults below are the builder's.
 *
 * @param host                   the address bound; default {@code 127.0.0.1}
 * @param port                   the port bound, 0 for a free one; default 8080
 * @param path                   the endpoint path: requests to it and below it are Bayeux; default {@value #DEFAULT_PATH}
 * @param allowedOrigins         the origins allowed by CORS and for WebSocket upgrades, {@code *} for any; default {@code *}
 * @param maxMessageSize         the largest request body or WebSocket message, in bytes; default 1 MiB
 * @param requestTimeout         how long a request may take to arrive completely; default 10 s
 * @param idleTimeout            how long an idle connection (nothing in flight) stays open; default 60 s
 * @param stallTime              how long a WebSocket connection stays unwritable, its reader taking nothing,
 *                               before the reader counts as one that does not read; default 2 s
 * @param tls                    the TLS configuration, or {@code null} (the default) for plain HTTP
 * @param staticRoots            the roots static files are served from, in order (unmodifiable); default none
 * @param jsonp                  whether the callback-polling (JSONP) transport is served; default false
 * @param websocket              whether the WebSocket transport is served; default true
 * @param handshakePerConnection whether each WebSocket connection must start with its own handshake; default false
 * @param websocketCompression   how WebSocket messages are compressed with permessage-deflate; default
 *                               {@link WebSocketCompression#DEFAULT} (on)
 * @param gzipLevel              the gzip level of large HTTP responses, 0 for none; default {@value #DEFAULT_GZIP_LEVEL}
 * @param gzipMinBytes           the least body length gzipped; default {@value #DEFAULT_GZIP_MIN_BYTES}
 * @param browserCookieName      the cookie that tells browsers apart; default {@code BAYEUX_BROWSER}
 * @param browserCookieSameSite  that cookie's {@code SameSite}; default {@link SameSite#LAX}
 * @param ioThreads              the number of I/O event loops; default {@linkplain #defaultIoThreads() one per core}
 * @param executorThreads        the threads of the default bounded executor; default
 *                               {@linkplain #defaultExecutorThreads() one per core, at least two}
 * @param bayeux                 the protocol settings: the builder's {@code bayeuxConfig} merged with the
 *                               server's own settings, never replaced by them (see
 *                               {@link NettyBayeuxServer.Builder#bayeuxConfig}); by default
 *                               {@link BayeuxServerConfig}'s defaults with a max queue of
 *                               {@value #DEFAULT_MAX_QUEUE} and the transports this server serves
 */
public record ServerSettings(String host, int port, String path, Set<String> allowedOrigins, int maxMessageSize,
                             Duration requestTimeout, Duration idleTimeout, Duration stallTime, TlsConfig tls,
                             List<String> staticRoots, boolean jsonp, boolean websocket, boolean handshakePerConnection,
                             WebSocketCompression websocketCompression, int gzipLevel, int gzipMinBytes, String browserCookieName,
                             SameSite browserCookieSameSite, int ioThreads, int executorThreads, BayeuxServerConfig bayeux) {
    /** The default endpoint path. */
    public static final String DEFAULT_PATH = "/cometd";
    /** The default largest request body or WebSocket message: 1 MiB. */
    public static final int DEFAULT_MAX_MESSAGE_SIZE = 1024 * 1024;
    /** The default largest number of messages queued for a session: 1000. */
    public static final int DEFAULT_MAX_QUEUE = 1000;
    /** The default time a request may take to arrive completely: 10 s. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);
    /** The default time an idle connection (nothing in flight) stays open: 60 s. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);
    /** How long a WebSocket connection stays unwritable, its reader taking nothing, before the reader counts as one that does not read. */
    public static final Duration DEFAULT_STALL_TIME = Duration.ofSeconds(2);
    /** The bound of the default executor's task queue: 100,000 tasks. */
    public static final int DEFAULT_EXECUTOR_QUEUE = 100_000;
    /** gzip level of large HTTP responses: the fastest (see {@link NettyBayeuxServer.Builder#gzipLevel}). */
    public static final int DEFAULT_GZIP_LEVEL = 1;
    /**
     * The least body gzipped (see {@link NettyBayeuxServer.Builder#gzipMinBytes}): a response with a
     * smaller body fits one TCP segment with its headers (at the usual 1,460-byte MSS), so gzip
     * would cost CPU and save no packet.
     */
    public static final int DEFAULT_GZIP_MIN_BYTES = 1280;
    /** The default name of the browser cookie, as in CometD. */
    public static final String DEFAULT_BROWSER_COOKIE_NAME = BrowserCookie.DEFAULT_NAME;

    /** Checks what must not be null and the durations, and copies the collections, so that the value stays immutable. */
    public ServerSettings {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(path, "path");
        allowedOrigins = Set.copyOf(allowedOrigins);
        requirePositive("requestTimeout", requestTimeout);
        requirePositive("idleTimeout", idleTimeout);
        requirePositive("stallTime", stallTime);
        staticRoots = List.copyOf(staticRoots);
        Objects.requireNonNull(browserCookieName, "browserCookieName");
        Objects.requireNonNull(browserCookieSameSite, "browserCookieSameSite");
        Objects.requireNonNull(bayeux, "bayeux");
        Objects.requireNonNull(websocketCompression, "websocketCompression");
    }

    /** {@code value}, if it is a positive duration; else an {@link IllegalArgumentException} that names it. */
    static Duration requirePositive(String name, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + value);
        }
        return value;
    }

    /** The default number of I/O event loops: one per core ({@link Runtime#availableProcessors()}). */
    public static int defaultIoThreads() {
        return Runtime.getRuntime().availableProcessors();
    }

    /**
     * The default number of threads of the bounded executor: one per core, at least two (so that
     * one slow listener does not hold up every message on a one-core machine).
     */
    public static int defaultExecutorThreads() {
        return Math.max(2, Runtime.getRuntime().availableProcessors());
    }

    /** The endpoint's URI on {@code port}, e.g. {@code http://127.0.0.1:8080/cometd}. */
    public URI endpoint(int port) {
        String address = host.contains(":") ? "[" + host + "]" : host;
        return URI.create((tls != null ? "https" : "http") + "://" + address + ":" + port + path);
    }

    /** Whether WebSocket upgrades are served: on here, and allowed by the protocol settings. */
    public boolean servesWebSocket() {
        return websocket && bayeux.allowedTransports().contains(ConnectionTypes.WEBSOCKET);
    }
}
