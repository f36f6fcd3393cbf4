package io.bayeux.transport.internal;

import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.server.spi.ServerObserver;
import io.bayeux.transport.HttpRoute;
import io.bayeux.transport.ServerSettings;
import io.bayeux.transport.internal.http.BodyAggregator;
import io.bayeux.transport.internal.http.BrowserCookie;
import io.bayeux.transport.internal.http.GzipCompressors;
import io.bayeux.transport.internal.http.GzipResponses;
import io.bayeux.transport.internal.http.HttpCodec;
import io.bayeux.transport.internal.http.HttpRequestHandler;
import io.bayeux.transport.internal.http.HttpShared;
import io.bayeux.transport.internal.http.RequestTimeoutHandler;
import io.bayeux.transport.internal.http.StaticResources;
import io.bayeux.transport.internal.websocket.WebSocketShared;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.cors.CorsConfig;
import io.netty.handler.codec.http.cors.CorsConfigBuilder;
import io.netty.handler.codec.http.cors.CorsHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;

import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The whole pipeline of a connection, in one place: TLS, read back-pressure, HTTP codec,
 * request timeout, gzip, body aggregation, CORS, idle detection and the Bayeux handler, which
 * routes each request and upgrades the connection to WebSocket when asked. What the
 * connections share is made here once per server; thread-safe.
 */
public final class BayeuxServerInitializer extends ChannelInitializer<SocketChannel> {
    /** Request line, headers and content chunks: at most 4 KiB, 8 KiB and 8 KiB (read by the decoders when made, never changed). */
    private final HttpDecoderConfig decoderConfig = new HttpDecoderConfig()
            .setMaxInitialLineLength(4096).setMaxHeaderSize(8192).setMaxChunkSize(8192);
    private final ServerSettings settings;
    /** The server's open connections, which it closes when it stops. */
    private final ChannelGroup channels;
    /** The event loops' outboxes: responses written from the executor, one wake-up per loop and burst. */
    private final LoopOutbox.Registry outboxes = new LoopOutbox.Registry();
    private final SslContext ssl;
    private final CorsConfig cors;
    /** What every HTTP connection shares (and, once upgraded, every WebSocket connection). */
    private final HttpShared http;
    /** What every WebSocket connection shares, their event loops' zlib state among it. */
    private final WebSocketShared websocket;
    /** The event loops' deflaters, or null when responses are not gzipped. */
    private final GzipCompressors gzip;
    private final BayeuxServerImpl bayeux;
    /** The byte counter of the observer it was made for, or null: see {@link #trafficCounter()}. */
    private volatile TrafficCounter trafficCounter;

    public BayeuxServerInitializer(ServerSettings settings, BayeuxServerImpl bayeux, Executor executor, ChannelGroup channels, SslContext ssl,
                                   Map<String, HttpRoute> routes) {
        this.settings = settings;
        this.channels = channels;
        this.ssl = ssl;
        this.bayeux = bayeux;
        BrowserCookie browserCookie = new BrowserCookie(settings.browserCookieName(), settings.browserCookieSameSite());
        this.websocket = new WebSocketShared(bayeux, settings, executor, browserCookie, outboxes);
        this.http = new HttpShared(bayeux, settings, executor, new StaticResources(settings.staticRoots()), browserCookie, outboxes, websocket, routes);
        this.gzip = settings.gzipLevel() == 0 ? null : new GzipCompressors(settings.gzipLevel());
        var origins = settings.allowedOrigins();
        CorsConfigBuilder builder = origins.contains("*")
                ? CorsConfigBuilder.forAnyOrigin()
                : CorsConfigBuilder.forOrigins(origins.toArray(String[]::new));
        this.cors = builder.allowCredentials()
                .allowedRequestMethods(HttpMethod.GET, HttpMethod.POST, HttpMethod.OPTIONS)
                .allowedRequestHeaders("Content-Type", "X-Requested-With", "Accept", "Origin", "Authorization")
                .maxAge(3600)
                .shortCircuit()
                .build();
    }

    /** The direct bytes this server's shared broadcast frames hold now (see {@link SharedFrames}). */
    public long sharedFrameBytes() {
        return outboxes.sharedFrameBytes();
    }

    /** The WebSocket frames written and the flushes done by the event loops so far, in that order. */
    public long[] writeCounts() {
        return new long[] {outboxes.framesWritten(), outboxes.flushes()};
    }

    /** The WebSocket messages compressed so far: a broadcast counts once. */
    public long websocketCompressions() {
        return websocket.compressions();
    }

    /** The WebSocket connections holding a compression context of their own now. */
    public int websocketCompressionContexts() {
        return websocket.heldContexts();
    }

    public long gatherTimers() {
        return outboxes.groupedTimersHandedToLoops();
    }

    /** The counter of the server's observer now, or null when it has none; made once per observer. */
    private TrafficCounter trafficCounter() {
        ServerObserver observer = bayeux.observer();
        if (observer == null) {
            return null;
        }
        TrafficCounter counter = trafficCounter;
        if (counter == null || counter.observer() != observer) {
            counter = new TrafficCounter(observer);
            trafficCounter = counter;
        }
        return counter;
    }

    @Override
    protected void initChannel(SocketChannel channel) {
        channels.add(channel);
        ChannelPipeline pipeline = channel.pipeline();
        TrafficCounter traffic = trafficCounter();
        if (traffic != null) {
            pipeline.addLast(TrafficCounter.NAME, traffic);
        }
        if (ssl != null) {
            pipeline.addLast("ssl", ssl.newHandler(channel.alloc()));
        }
        pipeline.addLast(ReadBackpressure.NAME, ReadBackpressure.INSTANCE);
        RequestTimeoutHandler requestTimeout = new RequestTimeoutHandler(settings.requestTimeout().toMillis());
        pipeline.addLast(RequestTimeoutHandler.STARTER_NAME, requestTimeout.starter());
        HttpCodec.addLast(pipeline, decoderConfig);
        pipeline.addLast(RequestTimeoutHandler.NAME, requestTimeout);
        // Small responses (most Bayeux replies) gain nothing from gzip but its CPU: only gzipMinBytes and more.
        if (gzip != null) {
            pipeline.addLast(GzipResponses.NAME, new GzipResponses(settings.gzipMinBytes(), gzip));
        }
        pipeline.addLast("aggregator", new BodyAggregator(settings.maxMessageSize()));
        // A WebSocket upgrade removes these two, as it does the request timeout and read back-pressure (see WebSocketUpgrade).
        pipeline.addLast("cors", new CorsHandler(cors));
        pipeline.addLast("idle", new IdleStateHandler(0, 0, settings.idleTimeout().toMillis(), TimeUnit.MILLISECONDS));
        pipeline.addLast("bayeux", new HttpRequestHandler(http));
    }
}
