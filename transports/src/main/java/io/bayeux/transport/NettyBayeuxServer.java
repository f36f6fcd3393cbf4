package io.bayeux.transport;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.QueueOverflow;
import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.server.internal.QueueOverflowPolicy;
import io.bayeux.transport.internal.AcceptTimes;
import io.bayeux.transport.internal.ApplicationExecutor;
import io.bayeux.transport.internal.BayeuxServerInitializer;
import io.bayeux.transport.internal.BoundServer;
import io.bayeux.transport.internal.ConnectionTypes;
import io.bayeux.transport.internal.GroupedTimers;
import io.bayeux.transport.internal.http.BrowserCookie;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.ssl.SslContext;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;

/**
 * A Bayeux server on the network: one Netty HTTP server that carries the long-polling and
 * WebSocket transports on one path (and every sub-path), with CORS, static files and TLS.
 *
 * <pre>{@code
 * try (NettyBayeuxServer server = NettyBayeuxServer.builder().port(8080).build().start()) {
 *     server.bayeux().createChannelIfAbsent("/chat/**");
 *     ...
 * }
 * }</pre>
 *
 * <p>A server starts once: {@link #start()} on a running or stopped server throws, and
 * {@link #close()} is {@link #stop()}.
 *
 * <p>Netty's event loops only do I/O; messages are handled, and application listeners run, on
 * the {@linkplain Builder#executor executor}. Thread-safe.
 *
 * <p>Threads, by default sized to the machine ({@link Runtime#availableProcessors()} cores):
 * one acceptor thread ({@code bayeux-accept-*}); {@linkplain ServerSettings#defaultIoThreads() one I/O event
 * loop per core} ({@code bayeux-io-*}, {@link Builder#ioThreads}); and a bounded pool of
 * {@linkplain ServerSettings#defaultExecutorThreads() one thread per core, at least two} ({@code bayeux-app-*},
 * {@link Builder#executorThreads}) with a queue of {@value ServerSettings#DEFAULT_EXECUTOR_QUEUE} tasks. The
 * pool runs work that uses the CPU (message handling, routing, listeners): more threads than
 * cores would only take turns. Application code that blocks (a database, a remote call) belongs
 * on virtual threads ({@link Builder#virtualThreads()}) or on an executor of its own
 * ({@link Builder#executor}), not on a bigger pool.
 */
public final class NettyBayeuxServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NettyBayeuxServer.class);

    private final ServerSettings settings;
    private final BayeuxServerImpl bayeux;
    /** Runs message handling and application listeners. */
    private final ApplicationExecutor executor;
    private final ChannelGroup channels = new DefaultChannelGroup("bayeux", GlobalEventExecutor.INSTANCE);
    /** Where this server is in its life; written under {@code this}, volatile for {@link #isRunning()}. */
    private volatile State state = State.NEW;
    /** The network side while started, else null; written under {@code this}. */
    private volatile BoundServer bound;
    /** The application's HTTP routes by path (unmodifiable). */
    private final Map<String, HttpRoute> routes;
    /** The pipeline of this run, null before the start. */
    private volatile BayeuxServerInitializer initializer;

    /** A server starts once and stops once: a stopped server's executor and sessions are gone. */
    private enum State { NEW, STARTED, STOPPED }

    private NettyBayeuxServer(ServerSettings settings, ExecutorService executor, boolean virtualThreads,
                              List<Consumer<BayeuxServer>> services, Map<String, HttpRoute> routes) {
        this.settings = settings;
        this.routes = routes;
        this.executor = ApplicationExecutor.of(executor, virtualThreads, settings.executorThreads());
        // Timers decide when; what they start (expiry listeners, held connect replies, lazy flushes) runs here.
        this.bayeux = new BayeuxServerImpl(settings.bayeux(), this.executor.executor());
        bayeux.addListener(new QueueOverflowPolicy(settings.bayeux().queueOverflow(), this.executor.executor()));
        for (Consumer<BayeuxServer> service : services) {
            service.accept(bayeux);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Binds the port and starts serving.
     *
     * @throws IllegalStateException if the server is running, or was stopped (a stopped server
     *                               cannot start again: build a new one), or the port cannot be bound
     */
    public synchronized NettyBayeuxServer start() {
        if (state != State.NEW) {
            throw new IllegalStateException(state == State.STARTED ? "Already started: " + this
                    : "Stopped, and a stopped server cannot start again (build a new one): " + this);
        }
        SslContext ssl = settings.tls() == null ? null : settings.tls().newSslContext();
        if (ssl == null && settings.browserCookieSameSite() == SameSite.NONE) {
            LOG.warn("The {} cookie has SameSite=None without TLS: browsers drop it, and long-polling sessions fail", settings.browserCookieName());
        }
        state = State.STARTED;
        bayeux.start();
        initializer = new BayeuxServerInitializer(settings, bayeux, executor.executor(), channels, ssl, routes);
        try {
            bound = BoundServer.bind(settings, initializer, channels, new AcceptTimes(bayeux.scheduler()::now));
        } catch (IllegalStateException x) {
            stop();
            throw x;
        }
        bayeux.afterAccepts(bound.afterAccepts());
        LOG.info("Bayeux server listening on {} ({})", uri(), bound.epoll() ? "epoll" : "nio");
        return this;
    }

    /**
     * Stops the server: no new connections, every connection closed (WebSocket peers get a
     * 1001 close frame), then every session removed, the threads stopped (the executor too,
     * unless it was given to the builder). Idempotent; a server stopped before it started only
     * releases its executor. It cannot start again.
     *
     * <p>Connections close before sessions go, so that a stopping server takes no new message
     * (a handshake would make a session that dies at once) and held connects are not answered
     * {@code reconnect: "none"}, which would tell clients never to come back: they see a lost
     * connection instead, retry with back-off, and handshake again with the next server.
     */
    public synchronized void stop() {
        if (state == State.STOPPED && bound == null) {
            return;
        }
        state = State.STOPPED;
        BoundServer network = bound;
        if (network != null) {
            network.closeConnections();
        }
        bayeux.stop();
        if (network != null) {
            network.shutdown();
            bound = null;
        }
        executor.shutdown();
    }

    /** The same as {@link #stop()}, for try-with-resources. */
    @Override
    public void close() {
        stop();
    }

    /**
     * The direct memory, in bytes, that broadcast messages of 1 KiB or more hold now: each is
     * copied once per event-loop turn into a direct buffer that every WebSocket frame carrying
     * it alone shares, freed when the last of those frames is written (or its connection
     * closes). A reader that does not read holds at most its outbound buffer's frames; the
     * messages waiting in its queue hold none. 0 before {@link #start()}.
     */
    public long sharedFrameBytes() {
        BayeuxServerInitializer current = initializer;
        return current == null ? 0 : current.sharedFrameBytes();
    }

    /**
     * The WebSocket frames the event loops wrote so far, and the flushes they did (one per
     * connection per round that wrote to it, WebSocket pushes and replies, long-polling
     * responses): each loop counts its own, summed when asked; for the load tool and tests.
     * Zeros before {@link #start()}.
     */
    public WriteCounts writeCounts() {
        BayeuxServerInitializer current = initializer;
        if (current == null) {
            return new WriteCounts(0, 0);
        }
        long[] counts = current.writeCounts();
        return new WriteCounts(counts[0], counts[1]);
    }

    /**
     * What a server's event loops wrote so far: see {@link #writeCounts()}.
     *
     * @param frames  WebSocket frames written, pushes and replies alike
     * @param flushes flushes asked of connections
     */
    public record WriteCounts(long frames, long flushes) {
    }

    /**
     * The WebSocket messages compressed with permessage-deflate so far: a broadcast counts once,
     * however many of its subscribers negotiated the extension; for monitoring and tests. 0
     * before {@link #start()}.
     */
    public long websocketCompressions() {
        BayeuxServerInitializer current = initializer;
        return current == null ? 0 : current.websocketCompressions();
    }

    /**
     * The WebSocket connections that hold a compression context (the last messages they sent and
     * where, see {@link WebSocketCompression.Context}) now: those that sent a compressed message
     * within the context's release time. 0 before {@link #start()} and with contexts off.
     */
    public int websocketCompressionContexts() {
        BayeuxServerInitializer current = initializer;
        return current == null ? 0 : current.websocketCompressionContexts();
    }

    /**
     * The timers handed to the event loops so far for the ends of long-polling gather times, one
     * per slot of ends due together (see {@link GroupedTimers}); for monitoring and tests.
     */
    public long gatherTimers() {
        BayeuxServerInitializer current = initializer;
        return current == null ? 0 : current.gatherTimers();
    }

    /** Whether the server is serving: started, and not stopping or stopped. */
    public boolean isRunning() {
        return state == State.STARTED && bound != null;
    }

    /** How many network connections are open now (HTTP and WebSocket). */
    public int connectionCount() {
        return channels.size();
    }

    /**
     * The I/O event loops while started (for their metrics: pending tasks), else an empty list.
     */
    public List<EventExecutor> ioLoops() {
        BoundServer network = bound;
        if (network == null) {
            return List.of();
        }
        List<EventExecutor> loops = new ArrayList<>();
        network.loops().forEach(loops::add);
        return loops;
    }

    /** The Bayeux server: channels, sessions, listeners. */
    public BayeuxServer bayeux() {
        return bayeux;
    }

    /** The bound port (useful with port 0). */
    public int port() {
        BoundServer network = bound;
        if (network == null) {
            throw new IllegalStateException("Not started: " + this);
        }
        return network.port();
    }

    /** The endpoint's URI, e.g. {@code http://127.0.0.1:8080/cometd}. */
    public URI uri() {
        return settings.endpoint(port());
    }

    /** What this server was built with: later calls on its builder do not change it. */
    public ServerSettings settings() {
        return settings;
    }

    ExecutorService executor() {
        return executor.executor();
    }

    /** The open connections (for tests). */
    ChannelGroup channels() {
        return channels;
    }

    @Override
    public String toString() {
        return "NettyBayeuxServer[" + settings.host() + ":" + settings.port() + settings.path() + "]";
    }

    /**
     * Builds a {@link NettyBayeuxServer}: {@link ServerSettings} lists each setting's default.
     * Each setter checks its argument; {@link #build()} freezes what was set. Not thread-safe.
     */
    public static final class Builder {
        private String host = "127.0.0.1";
        private int port = 8080;
        private String path = ServerSettings.DEFAULT_PATH;
        private Set<String> allowedOrigins = Set.of("*");
        private int maxMessageSize = ServerSettings.DEFAULT_MAX_MESSAGE_SIZE;
        private int maxQueue = ServerSettings.DEFAULT_MAX_QUEUE;
        private QueueOverflow queueOverflow = QueueOverflow.DISCONNECT;
        private Duration requestTimeout = ServerSettings.DEFAULT_REQUEST_TIMEOUT;
        private Duration idleTimeout = ServerSettings.DEFAULT_IDLE_TIMEOUT;
        private Duration stallTime = ServerSettings.DEFAULT_STALL_TIME;
        private TlsConfig tls;
        private final List<String> staticRoots = new ArrayList<>();
        private ExecutorService executor;
        private boolean virtualThreads;
        private boolean jsonp;
        private boolean handshakePerConnection;
        private WebSocketCompression websocketCompression = WebSocketCompression.DEFAULT;
        private int gzipLevel = ServerSettings.DEFAULT_GZIP_LEVEL;
        private int gzipMinBytes = ServerSettings.DEFAULT_GZIP_MIN_BYTES;
        private boolean websocket = true;
        private String browserCookieName = ServerSettings.DEFAULT_BROWSER_COOKIE_NAME;
        private SameSite browserCookieSameSite = SameSite.LAX;
        private int ioThreads;
        private int executorThreads;
        private BayeuxServerConfig bayeuxConfig;
        private final List<Consumer<BayeuxServer>> services = new ArrayList<>();
        private final Map<String, HttpRoute> routes = new LinkedHashMap<>();

        private Builder() {
        }

        public Builder host(String host) {
            this.host = Objects.requireNonNull(host, "host");
            return this;
        }

        /** The port; 0 picks a free one. */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be 0..65535: " + port);
            }
            this.port = port;
            return this;
        }

        /** The endpoint path; requests to it and to any path under it are Bayeux. */
        public Builder path(String path) {
            if (path == null || !path.startsWith("/") || (path.length() > 1 && path.endsWith("/"))) {
                throw new IllegalArgumentException("path must start with / and not end with /: " + path);
            }
            this.path = path;
            return this;
        }

        /** The origins allowed by CORS and for WebSocket upgrades; {@code *} allows any. */
        public Builder allowedOrigins(Set<String> allowedOrigins) {
            if (allowedOrigins == null || allowedOrigins.isEmpty()) {
                throw new IllegalArgumentException("allowedOrigins must not be empty: " + allowedOrigins);
            }
            this.allowedOrigins = Set.copyOf(allowedOrigins);
            return this;
        }

        public Builder maxMessageSize(int maxMessageSize) {
            if (maxMessageSize < 1024) {
                throw new IllegalArgumentException("maxMessageSize must be at least 1024 bytes: " + maxMessageSize);
            }
            this.maxMessageSize = maxMessageSize;
            return this;
        }

        /**
         * The bound of each session's queue, and what happens past it (a protocol rule, applied by
         * the core's {@link QueueOverflowPolicy}); a {@link #bayeuxConfig} that sets its own
         * {@code maxQueue} or {@code queueOverflow} wins over these.
         */
        public Builder maxQueue(int maxQueue, QueueOverflow overflow) {
            if (maxQueue < 1) {
                throw new IllegalArgumentException("maxQueue must be positive: " + maxQueue);
            }
            this.maxQueue = maxQueue;
            this.queueOverflow = Objects.requireNonNull(overflow, "overflow");
            return this;
        }

        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = ServerSettings.requirePositive("requestTimeout", requestTimeout);
            return this;
        }

        public Builder idleTimeout(Duration idleTimeout) {
            this.idleTimeout = ServerSettings.requirePositive("idleTimeout", idleTimeout);
            return this;
        }

        /**
         * How long a WebSocket connection may stay unwritable (its outbound buffer above the high water
         * mark) without its reader taking a single byte before the reader counts as one that does not
         * read. Until then, a reader with half its queue waiting is one the server is behind with:
         * publishers are slowed down (their connections not read) rather than its messages dropped.
         * Past it, only the reader's own queue pays, as its overflow policy says.
         */
        public Builder stallTime(Duration stallTime) {
            this.stallTime = ServerSettings.requirePositive("stallTime", stallTime);
            return this;
        }

        public Builder tls(TlsConfig tls) {
            this.tls = Objects.requireNonNull(tls, "tls");
            return this;
        }

        /**
         * Serves static files from a directory, or from the class path with a
         * {@code classpath:} prefix (e.g. {@code classpath:/static}). Roots are tried in order.
         */
        public Builder staticRoot(String root) {
            this.staticRoots.add(Objects.requireNonNull(root, "root"));
            return this;
        }

        /**
         * The executor that runs message handling and application listeners, instead of the
         * default bounded pool ({@link #executorThreads}); the caller shuts it down.
         */
        public Builder executor(ExecutorService executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * Runs message handling and application listeners on virtual threads, instead of the
         * default bounded pool: for application code that blocks (a database, a remote call).
         */
        public Builder virtualThreads() {
            this.virtualThreads = true;
            return this;
        }

        /**
         * Enables the callback-polling (JSONP) transport for old clients without CORS; off by
         * default. When on, handshake replies list {@code callback-polling} among the supported
         * connection types, unless {@link #bayeuxConfig} says otherwise.
         */
        public Builder jsonp(boolean jsonp) {
            this.jsonp = jsonp;
            return this;
        }

        /**
         * Requires each WebSocket connection to start with its own handshake; by default a
         * connection may carry a session that handshook elsewhere (over HTTP, or an earlier
         * connection), as Faye's client and reloaded pages need.
         */
        public Builder handshakePerConnection(boolean handshakePerConnection) {
            this.handshakePerConnection = handshakePerConnection;
            return this;
        }

        /**
         * Serves the WebSocket transport; on by default. When off, an upgrade request is
         * answered {@code 400} with a JSON body (clients then fall back to long-polling) and,
         * unless a {@link #bayeuxConfig} says otherwise, handshake replies no longer offer
         * {@code websocket}.
         */
        public Builder websocket(boolean websocket) {
            this.websocket = websocket;
            return this;
        }

        /**
         * The name of the cookie that tells browsers apart and binds each session to the
         * browser that made it; {@code BAYEUX_BROWSER} by default, as in CometD. The cookie is
         * always {@code HttpOnly}, for {@code Path=/}, and {@code Secure} when served over TLS.
         */
        public Builder browserCookieName(String name) {
            this.browserCookieName = BrowserCookie.requireValidName(name);
            return this;
        }

        /**
         * The {@code SameSite} attribute of the browser cookie; {@link SameSite#LAX} by default.
         * {@link SameSite#NONE} (pages from another origin) needs TLS: browsers drop a
         * {@code SameSite=None} cookie that is not {@code Secure}.
         */
        public Builder browserCookieSameSite(SameSite sameSite) {
            this.browserCookieSameSite = Objects.requireNonNull(sameSite, "sameSite");
            return this;
        }

        /**
         * The gzip level of HTTP responses of {@link #gzipMinBytes} and more to clients that
         * accept gzip: 1 (the default: fastest, and within a few percent of 9's size on JSON) to
         * 9 (smallest); 0 sends every response as it is.
         */
        public Builder gzipLevel(int gzipLevel) {
            if (gzipLevel < 0 || gzipLevel > 9) {
                throw new IllegalArgumentException("gzipLevel must be 0 (off) to 9: " + gzipLevel);
            }
            this.gzipLevel = gzipLevel;
            return this;
        }

        /**
         * The least body length, in bytes, of an HTTP response gzipped for a client that accepts
         * gzip; {@value ServerSettings#DEFAULT_GZIP_MIN_BYTES} by default (a smaller one fits one TCP segment with
         * its headers). Lower it where bytes cost more than CPU.
         */
        public Builder gzipMinBytes(int gzipMinBytes) {
            if (gzipMinBytes < 0) {
                throw new IllegalArgumentException("gzipMinBytes must not be negative: " + gzipMinBytes);
            }
            this.gzipMinBytes = gzipMinBytes;
            return this;
        }

        /**
         * Whether WebSocket clients that offer permessage-deflate get it; on by default, with the
         * other settings of {@link WebSocketCompression#DEFAULT} (or those given to
         * {@link #websocketCompression(WebSocketCompression)}).
         */
        public Builder websocketCompression(boolean websocketCompression) {
            this.websocketCompression = this.websocketCompression.withEnabled(websocketCompression);
            return this;
        }

        /**
         * Whether WebSocket clients that offer permessage-deflate without
         * {@code server_no_context_takeover} get a compression context of their own (fewer bytes,
         * more CPU: see {@link WebSocketCompression.Context}); off by default, the context's other
         * settings those of {@link WebSocketCompression.Context#OFF} (or those given to
         * {@link #websocketCompression(WebSocketCompression)}).
         */
        public Builder websocketCompressionContext(boolean websocketCompressionContext) {
            this.websocketCompression = this.websocketCompression.withContext(websocketCompressionContext);
            return this;
        }

        /** How WebSocket messages are compressed; {@link WebSocketCompression#DEFAULT} by default. */
        public Builder websocketCompression(WebSocketCompression websocketCompression) {
            this.websocketCompression = Objects.requireNonNull(websocketCompression, "websocketCompression");
            return this;
        }

        /**
         * The number of I/O event loops (threads); 0 means the default,
         * {@linkplain ServerSettings#defaultIoThreads() one per core}.
         */
        public Builder ioThreads(int ioThreads) {
            if (ioThreads < 0) {
                throw new IllegalArgumentException("ioThreads must be zero or positive: " + ioThreads);
            }
            this.ioThreads = ioThreads;
            return this;
        }

        /**
         * The number of threads of the default bounded executor; 0 means the default,
         * {@linkplain ServerSettings#defaultExecutorThreads() one per core, at least two}.
         * Not used with {@link #executor} or {@link #virtualThreads()}.
         */
        public Builder executorThreads(int executorThreads) {
            if (executorThreads < 0) {
                throw new IllegalArgumentException("executorThreads must be zero or positive: " + executorThreads);
            }
            this.executorThreads = executorThreads;
            return this;
        }

        /**
         * The protocol settings (timeouts, transports, codec), merged with this builder's own: what
         * was set on {@code bayeuxConfig}'s builder wins, and what was left at its default there
         * takes this builder's value. So a configuration that sets only a timeout keeps
         * {@link #maxQueue} (1,000 by default, not unbounded), and the transports that
         * {@link #websocket} and {@link #jsonp} say. A configuration that sets
         * {@code allowedTransports} names the only ones served: an upgrade when {@code websocket}
         * is not among them is refused as with {@link #websocket websocket(false)}, and messages
         * over long-polling or callback-polling when those are not get
         * {@code 403:<transport>:transport_not_allowed}.
         */
        public Builder bayeuxConfig(BayeuxServerConfig bayeuxConfig) {
            this.bayeuxConfig = Objects.requireNonNull(bayeuxConfig, "bayeuxConfig");
            return this;
        }

        /** Something to set up on the Bayeux server before it starts (channels, listeners, services). */
        public Builder service(Consumer<BayeuxServer> service) {
            this.services.add(Objects.requireNonNull(service, "service"));
            return this;
        }

        /**
         * Answers the requests on {@code path} (exactly that path, any method) with {@code route},
         * on the executor: see {@link HttpRoute}. The path must start with {@code /} and lie
         * outside the endpoint {@link #path}; a route wins over a static file of the same path.
         * Wrap a route in {@link HttpRoute#loopbackOnly()} to keep it from the network.
         *
         * @throws IllegalArgumentException if the path is not absolute or already has a route
         */
        public Builder route(String path, HttpRoute route) {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(route, "route");
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException("A route's path must start with '/': " + path);
            }
            if (routes.putIfAbsent(path, route) != null) {
                throw new IllegalArgumentException("There is a route at " + path + " already");
            }
            return this;
        }

        /**
         * The settings this builder holds now, frozen, with the protocol settings merged: what
         * {@link #build()} gives the server. Later calls on this builder do not change them.
         */
        public ServerSettings settings() {
            BayeuxServerConfig protocol = (bayeuxConfig != null ? bayeuxConfig : BayeuxServerConfig.defaults())
                    .withTransportDefaults(maxQueue, queueOverflow, ConnectionTypes.served(websocket, jsonp));
            return new ServerSettings(host, port, path, allowedOrigins, maxMessageSize, requestTimeout, idleTimeout, stallTime,
                    tls, staticRoots, jsonp, websocket, handshakePerConnection, websocketCompression, gzipLevel, gzipMinBytes,
                    browserCookieName, browserCookieSameSite,
                    ioThreads > 0 ? ioThreads : ServerSettings.defaultIoThreads(),
                    executorThreads > 0 ? executorThreads : ServerSettings.defaultExecutorThreads(),
                    protocol);
        }

        /**
         * A server with the settings this builder holds now: later calls on this builder do not change it.
         *
         * @throws IllegalArgumentException if a {@linkplain #route route} lies on or under the endpoint path
         */
        public NettyBayeuxServer build() {
            String endpointPrefix = path.endsWith("/") ? path : path + "/";
            for (String route : routes.keySet()) {
                if (route.equals(path) || route.startsWith(endpointPrefix)) {
                    throw new IllegalArgumentException("The route " + route + " lies on the Bayeux endpoint " + path);
                }
            }
            return new NettyBayeuxServer(settings(), executor, virtualThreads, List.copyOf(services), Map.copyOf(routes));
        }
    }
}
