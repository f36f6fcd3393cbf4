package io.bayeux.transport.http;

import io.bayeux.api.server.ServerMessage;
import io.bayeux.common.json.JsonCodec;
import io.bayeux.server.BayeuxServerImpl;
import io.bayeux.server.Scheduler;
import io.bayeux.server.spi.Connection;
import io.bayeux.transport.Batches;
import io.bayeux.transport.ConnectionTypes;
import io.bayeux.transport.LoopOutbox;
import io.bayeux.transport.ServerSettings;
import io.bayeux.transport.websocket.WebSocketShared;
import io.bayeux.transport.websocket.WebSocketUpgrade;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketServerExtensionHandler;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.AsciiString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * Routes each HTTP request: WebSocket upgrades and Bayeux long-polling on the endpoint path
 * (and below it), static files elsewhere. Runs on the event loop and mostly does I/O there:
 * Bayeux handling and file reads go to the application executor, except small bodies, parsed
 * on the loop, and connects that no application code takes part in, handled there whole (see
 * {@link #handleOnLoopOrDispatch}). One instance per
 * connection; its fields are confined to the event loop except {@link #inFlight}.
 */
public final class HttpRequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger LOG = LoggerFactory.getLogger(HttpRequestHandler.class);

    private static final AsciiString JSON_UTF_8 = AsciiString.cached("application/json;charset=UTF-8");
    private static final AsciiString JAVASCRIPT_UTF_8 = AsciiString.cached("text/javascript;charset=UTF-8");
    private static final AsciiString NO_CACHE_NO_STORE = AsciiString.cached("no-cache, no-store");
    /**
     * Headers of Bayeux responses, whose names and values are this class's constants (or come from
     * the configuration, checked when the server is built): not validated again on every response.
     */
    private static final HttpHeadersFactory RESPONSE_HEADERS = DefaultHttpHeadersFactory.headersFactory().withValidation(false);
    private static final HttpHeadersFactory RESPONSE_TRAILERS = DefaultHttpHeadersFactory.trailersFactory().withValidation(false);
    /** Bodies up to this length are parsed on the event loop (see {@link #handleOnLoopOrDispatch}). */
    static final int ON_LOOP_MAX_BYTES = 1024;

    private final BayeuxServerImpl bayeux;
    private final ServerSettings config;
    private final Executor executor;
    private final StaticResources statics;
    private final BrowserCookie browserCookie;
    private final LoopOutbox.Registry outboxes;
    private final WebSocketShared websocket;
    /** The endpoint path followed by a slash: paths under it are Bayeux too. */
    private final String endpointPrefix;
    /** Whether this connection is TLS: set when the handler joins the pipeline, after the TLS handler. */
    private boolean secure;
    /**
     * Whether replies may go as {@link EncodedResponse}s: the pipeline's encoder writes them, and
     * no WebSocket extension handler waits to see every response. Set when the handler joins the pipeline.
     */
    private boolean encodes;
    /** The pipeline's gzip handler, or null: a reply it would compress goes as a full response. Loop-confined. */
    private GzipResponses gzip;
    /** The timer of this connection's held connects, made on its first long-poll; written on the event loop. */
    private volatile HoldTimer holds;
    /** The held request of this connection, cancelled if the connection closes first. */
    private volatile Scheduler.Cancellable inFlight;
    private volatile boolean busy;

    /**
     * A handler for one connection, with what every connection of the server shares: responses
     * written from other threads go through {@code outboxes}, one round per event loop; an
     * upgraded connection keeps {@code websocket}'s settings by reference.
     */
    public HttpRequestHandler(BayeuxServerImpl bayeux, ServerSettings config, Executor executor, StaticResources statics,
                              BrowserCookie browserCookie, LoopOutbox.Registry outboxes, WebSocketShared websocket) {
        this.outboxes = outboxes;
        this.websocket = websocket;
        this.bayeux = bayeux;
        this.config = config;
        this.executor = executor;
        this.statics = statics;
        this.browserCookie = browserCookie;
        String endpoint = config.path();
        this.endpointPrefix = endpoint.endsWith("/") ? endpoint : endpoint + "/";
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        secure = isSecure(ctx);
        ChannelPipeline pipeline = ctx.pipeline();
        encodes = pipeline.get(HttpCodec.ResponseEncoder.class) != null && pipeline.get(WebSocketServerExtensionHandler.class) == null;
        gzip = pipeline.get(GzipResponses.class);
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
        String endpoint = config.path();
        boolean bayeuxPath = path.equals(endpoint) || path.startsWith(endpointPrefix);
        if (bayeuxPath) {
            boolean upgrade = WebSocketUpgrade.isUpgrade(request);
            QueryStringDecoder uri;
            if (upgrade && (!config.websocket() || !bayeux.getAllowedTransports().contains(ConnectionTypes.WEBSOCKET))) {
                HttpErrors.sendAndClose(ctx, HttpResponseStatus.BAD_REQUEST, "WebSocket is not available on " + endpoint
                        + "; allowed transports: " + String.join(", ", bayeux.getAllowedTransports()));
            } else if (upgrade) {
                WebSocketUpgrade.upgrade(ctx, request, websocket);
            } else if (request.method().equals(HttpMethod.POST)) {
                longPoll(ctx, request);
            } else if (config.jsonp() && request.method().equals(HttpMethod.GET)
                    && (uri = new QueryStringDecoder(request.uri())).parameters().containsKey("message")) {
                callbackPoll(ctx, request, uri);
            } else {
                FullHttpResponse response = HttpErrors.response(HttpResponseStatus.METHOD_NOT_ALLOWED,
                        request.method() + " is not allowed on " + endpoint + "; POST a JSON array of Bayeux messages");
                response.headers().set(HttpHeaderNames.ALLOW, config.jsonp() ? "GET, POST, OPTIONS" : "POST, OPTIONS");
                send(ctx, request, response);
            }
        } else if (!statics.isEmpty() && (request.method().equals(HttpMethod.GET) || request.method().equals(HttpMethod.HEAD))) {
            serveStatic(ctx, request, path);
        } else {
            send(ctx, request, HttpErrors.response(HttpResponseStatus.NOT_FOUND, "No resource at " + path));
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

    // --- long-polling

    private void longPoll(ChannelHandlerContext ctx, FullHttpRequest request) {
        String contentType = request.headers().get(HttpHeaderNames.CONTENT_TYPE, "application/json");
        if (!isUtf8OrNoCharset(contentType)) {
            send(ctx, request, HttpErrors.response(HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE,
                    "Unsupported charset '" + charset(contentType) + "': Bayeux messages are JSON in UTF-8"));
            return;
        }
        byte[] body;
        if (isMediaType(contentType, "application/x-www-form-urlencoded")) {
            String form = request.content().toString(StandardCharsets.UTF_8);
            List<String> message = new QueryStringDecoder(form, StandardCharsets.UTF_8, false).parameters().get("message");
            if (message == null || message.isEmpty()) {
                send(ctx, request, HttpErrors.response(HttpResponseStatus.BAD_REQUEST, "Form body without a 'message' parameter"));
                return;
            }
            body = message.get(0).getBytes(StandardCharsets.UTF_8);
        } else if (isMediaType(contentType, "application/json") || isMediaType(contentType, "text/json")
                || isMediaType(contentType, "text/plain")) {
            body = ByteBufUtil.getBytes(request.content());
        } else {
            send(ctx, request, HttpErrors.response(HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE,
                    "Unsupported content type '" + contentType + "': POST application/json"));
            return;
        }
        RequestContext context = new RequestContext(ctx.channel(), request, config.path(), ConnectionTypes.LONG_POLLING, secure);
        holdTimer(ctx);
        // A request with an Origin gets its CORS headers from the CORS handler, on a full response.
        boolean encoded = encodes && !request.headers().contains(HttpHeaderNames.ORIGIN);
        Exchange exchange = new Exchange(ctx, HttpUtil.isKeepAlive(request), browserCookie.read(request.headers()),
                request.headers().get(HttpHeaderNames.USER_AGENT), null, body, context,
                encoded, gzip != null && gzip.lastAccepted() ? gzip.minBytes() : Integer.MAX_VALUE);
        if (body.length <= ON_LOOP_MAX_BYTES) {
            handleOnLoopOrDispatch(ctx, request, exchange);
        } else {
            dispatch(ctx, request, exchange);
        }
    }

    /**
     * On the event loop, a request whose body is small (a connect is about 100 bytes): parsed
     * here, then handled here too when it is connects only that no application code takes part
     * in (see {@link BayeuxServerImpl#handlesOnLoop}); anything else goes to the executor, parsed.
     * A long-polling client's every cycle is such a connect: it costs no hand-off to another thread.
     */
    private void handleOnLoopOrDispatch(ChannelHandlerContext ctx, FullHttpRequest request, Exchange exchange) {
        busy = true;
        List<ServerMessage.Mutable> batch = exchange.parse();
        if (batch == null) {
            return;
        }
        if (bayeux.handlesOnLoop(batch)) {
            exchange.handle(batch);
            return;
        }
        try {
            executor.execute(() -> exchange.handleWhenCaughtUp(batch));
        } catch (RejectedExecutionException x) {
            exchange.fail(HttpResponseStatus.SERVICE_UNAVAILABLE, "Server overloaded, retry later");
        }
    }

    private void callbackPoll(ChannelHandlerContext ctx, FullHttpRequest request, QueryStringDecoder uri) {
        String callback = first(uri, "jsonp", "jsonpcallback");
        if (!isCallbackName(callback)) {
            send(ctx, request, HttpErrors.response(HttpResponseStatus.BAD_REQUEST, "Invalid JSONP callback name"));
            return;
        }
        byte[] body = uri.parameters().get("message").get(0).getBytes(StandardCharsets.UTF_8);
        RequestContext context = new RequestContext(ctx.channel(), request, config.path(), ConnectionTypes.CALLBACK_POLLING, secure);
        holdTimer(ctx);
        dispatch(ctx, request, new Exchange(ctx, HttpUtil.isKeepAlive(request), browserCookie.read(request.headers()),
                request.headers().get(HttpHeaderNames.USER_AGENT), callback, body, context, false, Integer.MAX_VALUE));
    }

    /** On the event loop: the connection's hold timer, made on first use. */
    private HoldTimer holdTimer(ChannelHandlerContext ctx) {
        HoldTimer timer = holds;
        if (timer == null) {
            timer = new HoldTimer(ctx.executor(), outboxes.timersOf(ctx.executor()));
            holds = timer;
        }
        return timer;
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

    private void dispatch(ChannelHandlerContext ctx, FullHttpRequest request, Runnable task) {
        busy = true;
        try {
            executor.execute(task);
        } catch (RejectedExecutionException x) {
            busy = false;
            send(ctx, request, HttpErrors.response(HttpResponseStatus.SERVICE_UNAVAILABLE, "Server overloaded, retry later"));
        }
    }

    /**
     * One Bayeux request and its response, written once from whichever thread completes it. It is
     * itself the task that handles the request on the executor and the callback of the core's
     * replies, so that a request costs one object here.
     */
    private final class Exchange implements Runnable, Consumer<List<ServerMessage>> {
        final ChannelHandlerContext ctx;
        final boolean keepAlive;
        /** The BAYEUX_BROWSER cookie the client sent, or null. */
        final String browserId;
        /** The cookie this response sets when the client sent none, or null. */
        final String newBrowserId;
        final String userAgent;
        final String jsonpCallback;
        /** The request's JSON; dropped once parsed. */
        private byte[] body;
        private final RequestContext context;
        /** Whether the reply goes as an {@link EncodedResponse} (gzipped or not). */
        private final boolean encoded;
        /** The body length from which the reply is gzipped ({@link Integer#MAX_VALUE}: never). */
        private final int gzipFrom;
        /** The pipeline's gzip handler when the request accepted gzip, or null: whose deflater gzips an encoded reply. */
        private final GzipResponses gzipper;
        volatile boolean done;

        Exchange(ChannelHandlerContext ctx, boolean keepAlive, String browserId, String userAgent, String jsonpCallback,
                 byte[] body, RequestContext context, boolean encoded, int gzipFrom) {
            this.ctx = ctx;
            this.keepAlive = keepAlive;
            this.browserId = browserId;
            this.newBrowserId = browserId == null ? browserCookie.newId() : null;
            this.userAgent = userAgent;
            this.jsonpCallback = jsonpCallback;
            this.body = body;
            this.context = context;
            this.encoded = encoded;
            this.gzipFrom = gzipFrom;
            this.gzipper = gzipFrom == Integer.MAX_VALUE ? null : gzip;
        }

        /** On the executor: parse, hand the batch to the core, answer when it replies. */
        @Override
        public void run() {
            List<ServerMessage.Mutable> batch = parse();
            if (batch != null) {
                handleWhenCaughtUp(batch);
            }
        }

        /** The request's batch, or null when it is not one (the request is answered so). */
        List<ServerMessage.Mutable> parse() {
            List<ServerMessage.Mutable> batch;
            try {
                batch = bayeux.decode(body);
            } catch (JsonCodec.JsonException x) {
                fail(HttpResponseStatus.BAD_REQUEST, x.getMessage());
                return null;
            } finally {
                body = null;
            }
            if (batch.isEmpty()) {
                fail(HttpResponseStatus.BAD_REQUEST, "Empty batch: POST a JSON array of Bayeux messages");
                return null;
            }
            return batch;
        }

        /**
         * A batch that publishes while the server is behind with deliveries waits until it caught
         * up: its client, waiting for the answer, sends nothing more meanwhile (the publisher is
         * slowed down, not the readers' messages dropped).
         */
        void handleWhenCaughtUp(List<ServerMessage.Mutable> batch) {
            if (bayeux.isBehind() && Batches.publishes(batch)) {
                bayeux.whenCaughtUp(() -> {
                    try {
                        executor.execute(() -> handleWhenCaughtUp(batch));
                    } catch (RejectedExecutionException x) {
                        fail(HttpResponseStatus.SERVICE_UNAVAILABLE, "Server overloaded, retry later");
                    }
                });
                return;
            }
            handle(batch);
        }

        void handle(List<ServerMessage.Mutable> batch) {
            InetSocketAddress remote = context.getRemoteAddress();
            // A session made by a request without the cookie belongs to the cookie this response sets.
            String sessionBrowser = browserId != null ? browserId : newBrowserId;
            Connection connection = bayeux.newConnection(new HttpEndpoint(context.getTransportName(), browserId, sessionBrowser,
                    userAgent, remote, context, holds));
            Scheduler.Cancellable cancellable = connection.handle(batch, this);
            if (!done) {
                inFlight = cancellable;
                if (!ctx.channel().isActive()) {
                    cancellable.cancel();
                }
            }
        }

        /** The core's replies. */
        @Override
        public void accept(List<ServerMessage> messages) {
            reply(messages);
        }

        void reply(List<ServerMessage> messages) {
            byte[] json;
            try {
                if (encoded) {
                    List<byte[]> arrays = new ArrayList<>(messages.size());
                    for (ServerMessage message : messages) {
                        arrays.add(bayeux.encodeArray(message));
                    }
                    writeEncoded(arrays, EncodedResponse.bodyLength(arrays) >= gzipFrom);
                    return;
                }
                json = bayeux.encode(messages);
            } catch (JsonCodec.JsonException x) {
                LOG.warn("Cannot encode replies {}", messages, x);
                fail(HttpResponseStatus.INTERNAL_SERVER_ERROR, "Cannot encode the reply");
                return;
            }
            byte[] body = json;
            AsciiString contentType = JSON_UTF_8;
            if (jsonpCallback != null) {
                byte[] prefix = (jsonpCallback + "(").getBytes(StandardCharsets.US_ASCII);
                body = new byte[prefix.length + json.length + 2];
                System.arraycopy(prefix, 0, body, 0, prefix.length);
                System.arraycopy(json, 0, body, prefix.length, json.length);
                body[body.length - 2] = ')';
                body[body.length - 1] = ';';
                contentType = JAVASCRIPT_UTF_8;
            }
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(body),
                    RESPONSE_HEADERS, RESPONSE_TRAILERS);
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
            response.headers().set(HttpHeaderNames.CACHE_CONTROL, NO_CACHE_NO_STORE);
            write(response);
        }

        void fail(HttpResponseStatus status, String message) {
            write(HttpErrors.response(status, message));
        }

        /**
         * Writes the reply as one buffer, made on the event loop (where it cannot be left
         * unreleased by a write that never happens, and where the loop's deflater gzips it when
         * {@code gzipped}): no response object, no second buffer.
         */
        private void writeEncoded(List<byte[]> arrays, boolean gzipped) {
            answered();
            String setCookie = newBrowserId == null ? null : browserCookie.setCookie(newBrowserId, secure);
            LoopOutbox outbox = outboxes.of(ctx.channel());
            GzipResponses gzip = gzipped ? gzipper : null;
            Runnable write = () -> {
                EncodedResponse response = gzip == null ? EncodedResponse.encode(ctx.alloc(), arrays, setCookie, keepAlive)
                        : EncodedResponse.encodeGzipped(ctx.alloc(), arrays, setCookie, keepAlive, gzip);
                if (keepAlive) {
                    ctx.write(response);
                } else {
                    ctx.write(response).addListener(ChannelFutureListener.CLOSE);
                }
            };
            outbox.write(ctx.channel(), write);
        }

        private void answered() {
            done = true;
            inFlight = null;
            busy = false;
        }

        private void write(FullHttpResponse response) {
            answered();
            if (newBrowserId != null) {
                response.headers().add(HttpHeaderNames.SET_COOKIE, browserCookie.setCookie(newBrowserId, secure));
            }
            response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
            LoopOutbox outbox = outboxes.of(ctx.channel());
            if (keepAlive) {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
                outbox.write(ctx.channel(), () -> ctx.write(response));
            } else {
                response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                outbox.write(ctx.channel(), () -> ctx.write(response).addListener(ChannelFutureListener.CLOSE));
            }
        }
    }

    /** Whether this connection is TLS, so that the browser cookie gets {@code Secure}. */
    private static boolean isSecure(ChannelHandlerContext ctx) {
        return ctx.pipeline().get(SslHandler.class) != null;
    }

    // --- static files

    private void serveStatic(ChannelHandlerContext ctx, FullHttpRequest request, String path) {
        boolean head = request.method().equals(HttpMethod.HEAD);
        String ifNoneMatch = request.headers().get(HttpHeaderNames.IF_NONE_MATCH);
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        dispatch(ctx, request, () -> {
            busy = false;
            FullHttpResponse response;
            try {
                StaticResources.Resource resource = statics.find(path);
                if (resource == null) {
                    response = HttpErrors.response(HttpResponseStatus.NOT_FOUND, "No resource at " + path);
                } else if (resource.etag().equals(ifNoneMatch)) {
                    response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_MODIFIED);
                    response.headers().set(HttpHeaderNames.ETAG, resource.etag());
                } else {
                    response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                            head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(resource.content()));
                    response.headers().set(HttpHeaderNames.CONTENT_TYPE, resource.contentType());
                    response.headers().set(HttpHeaderNames.ETAG, resource.etag());
                    response.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
                    response.headers().set("X-Content-Type-Options", "nosniff");
                    if (head) {
                        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, resource.content().length);
                    }
                }
            } catch (Exception x) {
                LOG.warn("Cannot read static resource {}", path, x);
                response = HttpErrors.response(HttpResponseStatus.INTERNAL_SERVER_ERROR, "Cannot read " + path);
            }
            if (!head || response.status() != HttpResponseStatus.OK) {
                response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
            }
            writeResponse(ctx, keepAlive, response);
        });
    }

    // --- plumbing

    private void send(ChannelHandlerContext ctx, FullHttpRequest request, FullHttpResponse response) {
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
        writeResponse(ctx, HttpUtil.isKeepAlive(request), response);
    }

    private static void writeResponse(ChannelHandlerContext ctx, boolean keepAlive, FullHttpResponse response) {
        if (keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            ctx.writeAndFlush(response);
        } else {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** Whether the media type of {@code contentType} (before any {@code ;}, trimmed) is {@code expected} (lower case), in any case. */
    static boolean isMediaType(String contentType, String expected) {
        int end = contentType.indexOf(';');
        if (end < 0) {
            end = contentType.length();
        }
        int begin = 0;
        while (begin < end && contentType.charAt(begin) <= ' ') {
            begin++;
        }
        while (end > begin && contentType.charAt(end - 1) <= ' ') {
            end--;
        }
        return end - begin == expected.length() && contentType.regionMatches(true, begin, expected, 0, end - begin);
    }

    /**
     * Whether {@code contentType} names UTF-8 ({@code utf-8} or {@code utf8}, in any case, quotes
     * ignored) or no charset at all; {@link #charset} says which it names otherwise. Allocates nothing.
     */
    static boolean isUtf8OrNoCharset(String contentType) {
        int length = contentType.length();
        int from = 0;
        while (from <= length) {
            int semicolon = contentType.indexOf(';', from);
            int end = semicolon < 0 ? length : semicolon;
            int begin = from;
            while (begin < end && contentType.charAt(begin) <= ' ') {
                begin++;
            }
            if (end - begin >= 8 && contentType.regionMatches(true, begin, "charset=", 0, 8)) {
                // Its value without quotes, trimmed.
                int valueBegin = begin + 8;
                int valueEnd = end;
                while (valueBegin < valueEnd && (contentType.charAt(valueBegin) <= ' ' || contentType.charAt(valueBegin) == '"')) {
                    valueBegin++;
                }
                while (valueEnd > valueBegin && (contentType.charAt(valueEnd - 1) <= ' ' || contentType.charAt(valueEnd - 1) == '"')) {
                    valueEnd--;
                }
                return equalsIgnoringQuotes(contentType, valueBegin, valueEnd, "utf-8")
                        || equalsIgnoringQuotes(contentType, valueBegin, valueEnd, "utf8");
            }
            from = end + 1;
        }
        return true;
    }

    /** Whether {@code s[from, to)}, its double quotes left out and lower-cased, is {@code expected}. */
    private static boolean equalsIgnoringQuotes(String s, int from, int to, String expected) {
        int matched = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c == '"') {
                continue;
            }
            if (matched == expected.length() || Character.toLowerCase(c) != expected.charAt(matched)) {
                return false;
            }
            matched++;
        }
        return matched == expected.length();
    }

    /** The charset parameter of a content type, lower case without quotes, or null when it has none. */
    static String charset(String contentType) {
        int length = contentType.length();
        int from = 0;
        while (from <= length) {
            int semicolon = contentType.indexOf(';', from);
            int end = semicolon < 0 ? length : semicolon;
            String part = contentType.substring(from, end).trim();
            if (part.regionMatches(true, 0, "charset=", 0, 8)) {
                return part.substring(8).replace("\"", "").trim().toLowerCase(Locale.ROOT);
            }
            from = end + 1;
        }
        return null;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof IdleStateEvent && !busy) {
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, event);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        Scheduler.Cancellable held = inFlight;
        if (held != null) {
            held.cancel();
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("HTTP connection {} failed", ctx.channel(), cause);
        ctx.close();
    }
}
