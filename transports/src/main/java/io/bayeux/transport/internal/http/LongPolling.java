package io.bayeux.transport.internal.http;

import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.transport.internal.ConnectionTypes;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.AsciiString;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * The long-polling transport: a POST to the endpoint carries a JSON array of messages, as
 * JSON ({@code application/json}, {@code text/json}, {@code text/plain}) or in the
 * {@code message} field of a form, in UTF-8. One per server, shared by its connections;
 * stateless, so thread-safe. Runs on the event loop.
 */
final class LongPolling {
    /** Bodies up to this length are parsed on the event loop (see {@link #handleOnLoopOrDispatch}). */
    static final int ON_LOOP_MAX_BYTES = 1024;
    private static final AsciiString TEXT_JSON = AsciiString.cached("text/json");

    private final PollingShared shared;

    LongPolling(PollingShared shared) {
        this.shared = shared;
    }

    /** Reads the messages of a POST and hands them to the core; answers 415 or 400 what it cannot read. */
    void handle(HttpConnection connection, FullHttpRequest request) {
        String contentType = request.headers().get(HttpHeaderNames.CONTENT_TYPE, "application/json");
        if (!MediaTypes.isUtf8OrNoCharset(contentType)) {
            connection.send(request, HttpErrors.response(HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE,
                    "Unsupported charset '" + MediaTypes.charset(contentType) + "': Bayeux messages are JSON in UTF-8"));
            return;
        }
        byte[] body;
        // JSON first: what nearly every request is.
        if (MediaTypes.isMediaType(contentType, HttpHeaderValues.APPLICATION_JSON) || MediaTypes.isMediaType(contentType, TEXT_JSON)
                || MediaTypes.isMediaType(contentType, HttpHeaderValues.TEXT_PLAIN)) {
            body = ByteBufUtil.getBytes(request.content());
        } else if (MediaTypes.isMediaType(contentType, HttpHeaderValues.APPLICATION_X_WWW_FORM_URLENCODED)) {
            String form = request.content().toString(StandardCharsets.UTF_8);
            List<String> message = new QueryStringDecoder(form, StandardCharsets.UTF_8, false).parameters().get("message");
            if (message == null || message.isEmpty()) {
                connection.send(request, HttpErrors.response(HttpResponseStatus.BAD_REQUEST, "Form body without a 'message' parameter"));
                return;
            }
            body = message.get(0).getBytes(StandardCharsets.UTF_8);
        } else {
            connection.send(request, HttpErrors.response(HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE,
                    "Unsupported content type '" + contentType + "': POST application/json"));
            return;
        }
        RequestContext context = new RequestContext(connection.ctx.channel(), request, shared.path(), ConnectionTypes.LONG_POLLING,
                connection.secure);
        connection.holdTimer(shared.outboxes());
        // A request with an Origin gets its CORS headers from the CORS handler, on a full response.
        boolean encoded = connection.encodes && !request.headers().contains(HttpHeaderNames.ORIGIN);
        GzipResponses gzip = connection.gzip;
        BayeuxExchange exchange = new BayeuxExchange(shared, connection, HttpUtil.isKeepAlive(request),
                shared.browserCookie().read(request.headers()), request.headers().get(HttpHeaderNames.USER_AGENT), null, body, context,
                encoded, gzip != null && gzip.lastAccepted() ? gzip.minBytes() : Integer.MAX_VALUE);
        if (body.length <= ON_LOOP_MAX_BYTES) {
            handleOnLoopOrDispatch(connection, exchange);
        } else {
            connection.dispatch(shared.executor(), request, exchange);
        }
    }

    /**
     * On the event loop, a request whose body is small (a connect is about 100 bytes): parsed
     * here, then handled here too when it is connects only that no application code takes part
     * in (see {@link BayeuxServerImpl#handlesOnLoop}); anything else goes to the executor, parsed.
     * A long-polling client's every cycle is such a connect: it costs no hand-off to another thread.
     */
    private void handleOnLoopOrDispatch(HttpConnection connection, BayeuxExchange exchange) {
        connection.busy(true);
        List<ServerMessage.Mutable> batch = exchange.parse();
        if (batch == null) {
            return;
        }
        if (shared.bayeux().handlesOnLoop(batch)) {
            exchange.handle(batch);
            return;
        }
        try {
            shared.executor().execute(() -> exchange.handleWhenCaughtUp(batch));
        } catch (RejectedExecutionException x) {
            exchange.fail(HttpResponseStatus.SERVICE_UNAVAILABLE, "Server overloaded, retry later");
        }
    }
}
