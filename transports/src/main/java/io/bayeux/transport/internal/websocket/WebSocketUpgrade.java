package io.bayeux.transport.internal.websocket;

import io.bayeux.transport.internal.ConnectionTypes;
import io.bayeux.transport.internal.ReadBackpressure;
import io.bayeux.transport.internal.http.BrowserCookie;
import io.bayeux.transport.internal.http.HttpErrors;
import io.bayeux.transport.internal.http.RequestContext;
import io.bayeux.transport.internal.http.RequestTimeoutHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.cors.CorsHandler;
import io.netty.handler.codec.http.websocketx.WebSocketFrameEncoder;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateHandler;

/**
 * Turns an HTTP connection into a Bayeux WebSocket connection on the same path: what the
 * connection keeps comes from the server's {@link WebSocketShared}, never from the HTTP handler
 * it replaces. Stateless.
 */
public final class WebSocketUpgrade {
    /** The name of the WebSocket frame handler in an upgraded pipeline. */
    public static final String FRAME_HANDLER = WebSocketFrameHandler.NAME;

    private WebSocketUpgrade() {
    }

    /** Whether {@code request} asks to upgrade to WebSocket: a GET with {@code Connection: Upgrade} and {@code Upgrade: websocket}. */
    public static boolean isUpgrade(FullHttpRequest request) {
        return request.method().equals(HttpMethod.GET)
                && request.headers().containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE, true)
                && request.headers().contains(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET, true);
    }

    /**
     * Checks the Origin, answers the upgrade and replaces the HTTP handlers of the pipeline by
     * the WebSocket ones, the handler of {@code ctx} by the frame handler. Runs on the event loop.
     */
    public static void upgrade(ChannelHandlerContext ctx, FullHttpRequest request, WebSocketShared shared) {
        String origin = request.headers().get(HttpHeaderNames.ORIGIN);
        if (origin != null && !shared.allowedOrigins.contains("*") && !shared.allowedOrigins.contains(origin)) {
            HttpErrors.sendAndClose(ctx, HttpResponseStatus.FORBIDDEN, "Origin " + origin + " is not allowed");
            return;
        }
        ChannelPipeline pipeline = ctx.pipeline();
        boolean secure = pipeline.get(SslHandler.class) != null;
        String scheme = secure ? "wss" : "ws";
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
        BrowserCookie cookie = shared.browserCookie;
        String browserId = cookie.read(request.headers());
        boolean cookieLess = browserId == null;
        HttpHeaders headers = new DefaultHttpHeaders();
        if (cookieLess) {
            browserId = cookie.newId();
            headers.add(HttpHeaderNames.SET_COOKIE, cookie.setCookie(browserId, secure));
        }
        PerMessageDeflate.Answer deflate = PerMessageDeflate.negotiate(request.headers().getAll(HttpHeaderNames.SEC_WEBSOCKET_EXTENSIONS),
                shared.compression);
        if (deflate != null) {
            headers.add(HttpHeaderNames.SEC_WEBSOCKET_EXTENSIONS, deflate.header());
        }
        RequestContext context = RequestContext.ofUpgrade(ctx.channel(), request, shared.path, ConnectionTypes.WEBSOCKET);
        WebSocketFrameHandler frames = new WebSocketFrameHandler(
                new WebSocketEndpoint(ctx.channel(), shared, browserId, cookieLess, context, shared.outboxes.of(ctx.channel()),
                        deflate == null ? null : shared.deflationOf(ctx.channel().eventLoop()),
                        deflate == null || !deflate.context() ? null : shared.newContext(ctx.channel().eventLoop(), deflate.windowBits())));
        pipeline.replace(ctx.name(), WebSocketFrameHandler.NAME, frames);
        // An idle WebSocket connection keeps only the frame decoder (which the handshake puts in
        // place of the HTTP codec, gzip and aggregator) and the frame handler: the frame handler
        // also does what the handlers removed here did (read back-pressure, idle detection with
        // its loop's IdleSweep), puts fragments together and checks UTF-8.
        removeIfPresent(pipeline, RequestTimeoutHandler.STARTER_NAME);
        removeIfPresent(pipeline, RequestTimeoutHandler.NAME);
        removeIfPresent(pipeline, CorsHandler.class);
        removeIfPresent(pipeline, IdleStateHandler.class);
        removeIfPresent(pipeline, ReadBackpressure.NAME);
        handshaker.handshake(ctx.channel(), request, headers, ctx.newPromise()).addListener(future -> {
            if (!future.isSuccess()) {
                ctx.close();
                return;
            }
            // The 101 is written and the HTTP encoder gone: the frame encoder the handshake put
            // in its place goes too, as the frames written from now on are encoded already.
            removeIfPresent(pipeline, WebSocketFrameEncoder.class);
        });
    }

    private static void removeIfPresent(ChannelPipeline pipeline, String name) {
        if (pipeline.get(name) != null) {
            pipeline.remove(name);
        }
    }

    private static void removeIfPresent(ChannelPipeline pipeline, Class<? extends ChannelHandler> type) {
        if (pipeline.get(type) != null) {
            pipeline.remove(type);
        }
    }
}
