package io.bayeux.transport.internal.http;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.Executor;

/**
 * Answers GET and HEAD requests outside the endpoint path with files from the
 * {@link StaticResources}, read on the executor (never on the event loop), with an
 * {@code ETag} for conditional requests. One per server, shared by its connections; thread-safe.
 */
final class StaticFiles {
    private static final Logger LOG = LoggerFactory.getLogger(StaticFiles.class);
    private final StaticResources resources;
    private final Executor executor;

    StaticFiles(StaticResources resources, Executor executor) {
        this.resources = resources;
        this.executor = executor;
    }

    /** Whether {@code request} is one to answer with a file: there are roots, and it is a GET or a HEAD. */
    boolean serves(FullHttpRequest request) {
        return !resources.isEmpty() && (request.method().equals(HttpMethod.GET) || request.method().equals(HttpMethod.HEAD));
    }

    /** On the event loop: answers {@code request} with the file at {@code path}, or 404. */
    void handle(HttpConnection connection, FullHttpRequest request, String path) {
        boolean head = request.method().equals(HttpMethod.HEAD);
        String ifNoneMatch = request.headers().get(HttpHeaderNames.IF_NONE_MATCH);
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        connection.dispatch(executor, request, () -> {
            connection.busy(false);
            FullHttpResponse response = response(path, head, ifNoneMatch);
            if (!head || response.status() != HttpResponseStatus.OK) {
                response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
            }
            connection.write(keepAlive, response);
        });
    }

    private FullHttpResponse response(String path, boolean head, String ifNoneMatch) {
        try {
            StaticResources.Resource resource = resources.find(path);
            if (resource == null) {
                return HttpErrors.response(HttpResponseStatus.NOT_FOUND, "No resource at " + path);
            }
            if (resource.etag().equals(ifNoneMatch)) {
                FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_MODIFIED);
                response.headers().set(HttpHeaderNames.ETAG, resource.etag());
                return response;
            }
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(resource.content()));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, resource.contentType());
            response.headers().set(HttpHeaderNames.ETAG, resource.etag());
            response.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
            response.headers().set("X-Content-Type-Options", "nosniff");
            if (head) {
                response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, resource.content().length);
            }
            return response;
        } catch (Exception x) {
            LOG.warn("Cannot read static resource {}", path, x);
            return HttpErrors.response(HttpResponseStatus.INTERNAL_SERVER_ERROR, "Cannot read " + path);
        }
    }
}
