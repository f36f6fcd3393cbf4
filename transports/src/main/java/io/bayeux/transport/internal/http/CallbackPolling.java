package io.bayeux.transport.internal.http;

import io.bayeux.transport.internal.ConnectionTypes;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The callback-polling (JSONP) transport, for old clients without CORS: a GET to the endpoint
 * carries the messages in its {@code message} parameter, and the reply is a script that calls
 * the function its {@code jsonp} (or {@code jsonpcallback}) parameter names, by default
 * {@code jsonpcallback}. One per server, shared by its connections; stateless, so thread-safe.
 */
final class CallbackPolling {
    private final PollingShared shared;

    CallbackPolling(PollingShared shared) {
        this.shared = shared;
    }

    /** Whether {@code uri} is a callback-polling request: it has a {@code message} parameter. */
    static boolean isCallbackPoll(QueryStringDecoder uri) {
        return uri.parameters().containsKey("message");
    }

    /** On the event loop: checks the callback's name (400 if it is not one) and hands the messages to the executor. */
    void handle(HttpConnection connection, FullHttpRequest request, QueryStringDecoder uri) {
        String callback = first(uri, "jsonp", "jsonpcallback");
        if (!isCallbackName(callback)) {
            connection.send(request, HttpErrors.response(HttpResponseStatus.BAD_REQUEST, "Invalid JSONP callback name"));
            return;
        }
        byte[] body = uri.parameters().get("message").get(0).getBytes(StandardCharsets.UTF_8);
        RequestContext context = new RequestContext(connection.ctx.channel(), request, shared.path(), ConnectionTypes.CALLBACK_POLLING,
                connection.secure);
        connection.holdTimer(shared.outboxes());
        connection.dispatch(shared.executor(), request, new BayeuxExchange(shared, connection, HttpUtil.isKeepAlive(request),
                shared.browserCookie().read(request.headers()), request.headers().get(HttpHeaderNames.USER_AGENT), callback, body,
                context, false, Integer.MAX_VALUE));
    }

    /** A JavaScript name for the JSONP callback: {@code [A-Za-z_$][A-Za-z0-9_$.]{0,63}}. */
    static boolean isCallbackName(String name) {
        int length = name.length();
        if (length < 1 || length > 64) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = name.charAt(i);
            boolean allowed = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == '$'
                    || (i > 0 && ((c >= '0' && c <= '9') || c == '.'));
            if (!allowed) {
                return false;
            }
        }
        return true;
    }

    private static String first(QueryStringDecoder uri, String... names) {
        for (String name : names) {
            List<String> values = uri.parameters().get(name);
            if (values != null && !values.isEmpty()) {
                return values.get(0);
            }
        }
        return "jsonpcallback";
    }
}
