package io.bayeux.transport.internal.http;

import io.bayeux.transport.HttpRoute;
import io.bayeux.transport.internal.websocket.WebSocketUpgrade;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.timeout.IdleStateEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes each HTTP request of one connection: on the endpoint path (and below it) a WebSocket
 * upgrade to {@link WebSocketUpgrade}, a POST to {@link LongPolling}, a GET with messages to
 * {@link CallbackPolling} when JSONP is on; elsewhere a request on an application's
 * {@linkplain HttpRoutes route} to it, a GET or HEAD to {@link StaticFiles}; the
 * rest is answered 400, 405 or 404 here. Closes the connection when it is idle with no request
 * being handled. One instance per connection, on its event loop; what the connection's requests
 * share is its {@link HttpConnection}, what every connection shares its {@link HttpShared}.
 */
public final class HttpRequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(HttpRequestHandler.class);

    private final HttpShared shared;
    /** Made when the handler joins the pipeline; loop-confined. */
    private HttpConnection connection;

    public HttpRequestHandler(HttpShared shared) {
        this.shared = shared;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        connection = new HttpConnection(ctx);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (!request.decoderResult().isSuccess()) {
            Throwable cause = request.decoderResult().cause();
            if (cause instanceof TooLongHttpLineException) {
                HttpErrors.sendAndClose(ctx, HttpResponseStatus.REQUEST_URI_TOO_LONG, "Request line too long: " + cause.getMessage());
            } else if (cause instanceof TooLongHttpHeaderException) {
                HttpErrors.sendAndClose(ctx, HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "Request headers too large: " + cause.getMessage());
            } else {
                HttpErrors.sendAndClose(ctx, HttpResponseStatus.BAD_REQUEST, "Malformed HTTP request: " + cause);
            }
            return;
        }
        String path = path(request.uri());
        HttpRoute route;
        if (shared.isEndpoint(path)) {
            routeToEndpoint(ctx, request);
        } else if ((route = shared.routes.at(path)) != null) {
            shared.routes.handle(connection, request, path, route);
        } else if (shared.staticFiles.serves(request)) {
            shared.staticFiles.handle(connection, request, path);
        } else {
            connection.send(request, HttpErrors.response(HttpResponseStatus.NOT_FOUND, "No resource at " + path));
        }
    }

    private void routeToEndpoint(ChannelHandlerContext ctx, FullHttpRequest request) {
        boolean upgrade = WebSocketUpgrade.isUpgrade(request);
        QueryStringDecoder uri;
        if (upgrade && !shared.servesWebSocket) {
            HttpErrors.sendAndClose(ctx, HttpResponseStatus.BAD_REQUEST, "WebSocket is not available on " + shared.path
                    + "; allowed transports: " + String.join(", ", shared.allowedTransports));
        } else if (upgrade) {
            WebSocketUpgrade.upgrade(ctx, request, shared.websocket);
        } else if (request.method().equals(HttpMethod.POST)) {
            shared.longPolling.handle(connection, request);
        } else if (shared.callbackPolling != null && request.method().equals(HttpMethod.GET)
                && CallbackPolling.isCallbackPoll(uri = new QueryStringDecoder(request.uri()))) {
            shared.callbackPolling.handle(connection, request, uri);
        } else {
            FullHttpResponse response = HttpErrors.response(HttpResponseStatus.METHOD_NOT_ALLOWED,
                    request.method() + " is not allowed on " + shared.path + "; POST a JSON array of Bayeux messages");
            response.headers().set(HttpHeaderNames.ALLOW, shared.callbackPolling != null ? "GET, POST, OPTIONS" : "POST, OPTIONS");
            connection.send(request, response);
        }
    }

    /**
     * The decoded path of a request URI, as {@link QueryStringDecoder#path()} gives it; without
     * making a decoder when there is nothing to decode (no {@code %}), as on every Bayeux request.
     */
    static String path(String uri) {
        int end = uri.length();
        for (int i = 0; i < end; i++) {
            char c = uri.charAt(i);
            if (c == '?' || c == '#') {
                end = i;
            } else if (c == '%') {
                return new QueryStringDecoder(uri).path();
            }
        }
        return uri.substring(0, end);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof IdleStateEvent && !connection.busy()) {
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, event);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        connection.closed();
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("HTTP connection {} failed", ctx.channel(), cause);
        ctx.close();
    }
}
