package io.bayeux.transport.websocket;

import io.bayeux.transport.ServerSettings;
import io.bayeux.transport.ReadBackpressure;
import io.bayeux.transport.http.BrowserCookie;
import io.bayeux.transport.http.HttpErrors;
import io.bayeux.transport.http.HttpRequestHandler;
import io.bayeux.transport.http.RequestContext;
import io.bayeux.transport.http.RequestTimeoutHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import io.netty.handler.ssl.SslHandler;


/** Turns an HTTP connection into a Bayeux WebSocket connection on the same path. */
public final class WebSocketUpgrade {
    /** The name of the WebSocket frame handler in an upgraded pipeline. */
    public static final String FRAME_HANDLER = WebSocketFrameHandler.NAME;
    /** The transport's name in {@code allowedTransports} and {@code connectionType}. */
    public static final String WEBSOCKET = "websocket";
    private WebSocketUpgrade() {
    }

    public static boolean isUpgrade(FullHttpRequest request) {
        return request.method().equals(HttpMethod.GET)
                && request.headers().containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE, true)
                && request.headers().contains(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET, true);
    }

    /**
     * Checks the Origin, answers the upgrade and replaces the HTTP handlers of the pipeline by
     * the WebSocket ones. Runs on the event loop.
     */
    public static void upgrade(ChannelHandlerContext ctx, FullHttpRequest request, WebSocketShared shared,
                               ServerSettings config, HttpRequestHandler http) {
        String origin = request.headers().get(HttpHeaderNames.ORIGIN);
        if (origin != null && !config.allowedOrigins().contains("*") && !config.allowedOrigins().contains(origin)) {
            HttpErrors.sendAndClose(ctx, HttpResponseStatus.FORBIDDEN, "Origin " + origin + " is not allowed");
            return;
        }
        ChannelPipeline pipeline = ctx.pipeline();
        String scheme = pipeline.get(SslHandler.class) != null ? "wss" : "ws";
        String url = scheme + "://" + request.headers().get(HttpHeaderNames.HOST, "localhost") + request.uri();
        WebSocketServerHandshaker handshaker = new WebSocketServerHandshakerFactory(url, null, shared.decoderConfig).newHandshaker(request);
        if (handshaker == null) {
            WebSocketServerHandshakerFactory.sendUnsupportedVersionResponse(ctx.channel());
            return;
        }
        // The connection's browser is the one of the cookie the upgrade sent, or of the one its
        // 101 sets: sessions handshaken here belong to it (a reloaded page brings the cookie back),
        // and a client that keeps no cookies still uses its session on this connection, but on no
        // other. A connection upgraded without a cookie may adopt a session made over HTTP
        // (Faye's client opens its socket before its handshake reply gives it the cookie).
        BrowserCookie cookie = http.browserCookie();
        String browserId = cookie.read(request.headers());
        boolean cookieLess = browserId == null;
        HttpHeaders headers = new DefaultHttpHeaders();
        if (cookieLess) {
            browserId = cookie.newId();
            headers.add(HttpHeaderNames.SET_COOKIE, cookie.setCookie(browserId, HttpRequestHandler.isSecure(ctx)));
        }
        RequestContext context = RequestContext.ofUpgrade(ctx.channel(), request, config.path(), WEBSOCKET);
        WebSocketFrameHandler frames = new WebSocketFrameHandler(
                new WebSocketEndpoint(ctx.channel(), shared, browserId, cookieLess, context, http.outbox(ctx.channel())));
        pipeline.replace(http, WebSocketFrameHandler.NAME, frames);
        // An idle WebSocket connection keeps only the frame codec (which the handshake puts in
        // place of the HTTP codec, gzip and aggregator) and the frame handler: the frame handler
        // also does what the handlers removed here did (read back-pressure, idle detection with
        // its loop's IdleSweep), puts fragments together and checks UTF-8.
        removeIfPresent(pipeline, RequestTimeoutHandler.STARTER_NAME);
        removeIfPresent(pipeline, RequestTimeoutHandler.NAME);
        removeIfPresent(pipeline, HttpRequestHandler.CORS);
        removeIfPresent(pipeline, HttpRequestHandler.IDLE);
        removeIfPresent(pipeline, ReadBackpressure.NAME);
        handshaker.handshake(ctx.channel(), request, headers, ctx.newPromise()).addListener(future -> {
            if (!future.isSuccess()) {
                ctx.close();
            }
        });
    }

    private static void removeIfPresent(ChannelPipeline pipeline, String name) {
        if (pipeline.get(name) != null) {
            pipeline.remove(name);
        }
    }
}
