package io.bayeux.transport.internal.http;

import io.bayeux.transport.HttpRoute;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executor;

/**
 * The application's {@link HttpRoute}s of one server, by exact path: each request to one is read
 * on the event loop and answered on the executor. Immutable; thread-safe.
 */
final class HttpRoutes {
    private static final Logger LOG = LoggerFactory.getLogger(HttpRoutes.class);
    private final Map<String, HttpRoute> routes;
    private final Executor executor;

    HttpRoutes(Map<String, HttpRoute> routes, Executor executor) {
        this.routes = Map.copyOf(routes);
        this.executor = executor;
    }

    /** The route at {@code path}, or null. */
    HttpRoute at(String path) {
        return routes.isEmpty() ? null : routes.get(path);
    }

    /** On the event loop: answers {@code request} with {@code route}, called on the executor. */
    void handle(HttpConnection connection, FullHttpRequest request, String path, HttpRoute route) {
        HttpRoute.Request query = query(connection, request, path);
        boolean head = request.method().equals(HttpMethod.HEAD);
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        connection.dispatch(executor, request, () -> {
            connection.busy(false);
            FullHttpResponse response = response(route, query, head);
            connection.write(keepAlive, response);
        });
    }

    private static HttpRoute.Request query(HttpConnection connection, FullHttpRequest request, String path) {
        Map<String, String> headers = new HashMap<>();
        for (Map.Entry<String, String> header : request.headers()) {
            headers.merge(header.getKey().toLowerCase(Locale.ROOT), header.getValue(), (a, b) -> a + ", " + b);
        }
        InetSocketAddress peer = (InetSocketAddress) connection.ctx.channel().remoteAddress();
        return new HttpRoute.Request(request.method().name(), path, new QueryStringDecoder(request.uri()).parameters(),
                headers, ByteBufUtil.getBytes(request.content()), peer);
    }

    private static FullHttpResponse response(HttpRoute route, HttpRoute.Request query, boolean head) {
        HttpRoute.Reply reply;
        try {
            reply = route.answer(query);
            if (reply == null) {
                throw new NullPointerException("The route answered null");
            }
        } catch (Exception x) {
            LOG.warn("HTTP route {} failed on {} {}", route, query.method(), query.path(), x);
            return HttpErrors.response(HttpResponseStatus.INTERNAL_SERVER_ERROR, "The route at " + query.path() + " failed");
        }
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(reply.status()),
                head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(reply.body()));
        if (reply.contentType() != null) {
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, reply.contentType());
        }
        reply.headers().forEach(response.headers()::set);
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, reply.body().length);
        return response;
    }
}
