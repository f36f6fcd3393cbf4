package io.bayeux.transport.internal.http;

import io.bayeux.api.server.ServerMessage;
import io.bayeux.common.json.JsonCodec;
import io.bayeux.server.Scheduler;
import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.server.spi.Connection;
import io.bayeux.transport.internal.Batches;
import io.bayeux.transport.internal.LoopOutbox;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * One long-polling or callback-polling request and its response, written once from whichever
 * thread completes it. It is itself the task that handles the request on the executor and the
 * callback of the core's replies, so that a request costs one object here. Made on the event
 * loop; {@link #done} is written from whichever thread answers, the rest is final or touched by
 * one thread at a time.
 */
final class BayeuxExchange implements Runnable, Consumer<List<ServerMessage>> {
    private static final Logger LOG = LoggerFactory.getLogger(BayeuxExchange.class);
    private static final AsciiString JSON_UTF_8 = AsciiString.cached("application/json;charset=UTF-8");
    private static final AsciiString JAVASCRIPT_UTF_8 = AsciiString.cached("text/javascript;charset=UTF-8");
    private static final AsciiString NO_CACHE_NO_STORE = AsciiString.cached("no-cache, no-store");
    /**
     * Headers of Bayeux responses, whose names and values are this class's constants (or come from
     * the configuration, checked when the server is built): not validated again on every response.
     */
    private static final HttpHeadersFactory RESPONSE_HEADERS = DefaultHttpHeadersFactory.headersFactory().withValidation(false);
    private static final HttpHeadersFactory RESPONSE_TRAILERS = DefaultHttpHeadersFactory.trailersFactory().withValidation(false);

    private final PollingShared shared;
    private final HttpConnection connection;
    private final ChannelHandlerContext ctx;
    private final boolean keepAlive;
    /** The BAYEUX_BROWSER cookie the client sent, or null. */
    private final String browserId;
    /** The cookie this response sets when the client sent none, or null. */
    private final String newBrowserId;
    private final String userAgent;
    /** The JSONP callback the reply is wrapped in, or null for long-polling. */
    private final String jsonpCallback;
    /** The request's JSON; dropped once parsed. */
    private byte[] body;
    private final RequestContext context;
    /** Whether the reply goes as an {@link EncodedResponse} (gzipped or not). */
    private final boolean encoded;
    /** The body length from which the reply is gzipped ({@link Integer#MAX_VALUE}: never). */
    private final int gzipFrom;
    /** The pipeline's gzip handler when the request accepted gzip, or null: whose deflater gzips an encoded reply. */
    private final GzipResponses gzipper;
    private volatile boolean done;

    BayeuxExchange(PollingShared shared, HttpConnection connection, boolean keepAlive, String browserId, String userAgent,
                   String jsonpCallback, byte[] body, RequestContext context, boolean encoded, int gzipFrom) {
        this.shared = shared;
        this.connection = connection;
        this.ctx = connection.ctx;
        this.keepAlive = keepAlive;
        this.browserId = browserId;
        this.newBrowserId = browserId == null ? shared.browserCookie().newId() : null;
        this.userAgent = userAgent;
        this.jsonpCallback = jsonpCallback;
        this.body = body;
        this.context = context;
        this.encoded = encoded;
        this.gzipFrom = gzipFrom;
        this.gzipper = gzipFrom == Integer.MAX_VALUE ? null : connection.gzip;
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
            batch = shared.bayeux().decode(body);
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
        BayeuxServerImpl bayeux = shared.bayeux();
        if (bayeux.isBehind() && Batches.publishes(batch)) {
            bayeux.whenCaughtUp(() -> {
                try {
                    shared.executor().execute(() -> handleWhenCaughtUp(batch));
                } catch (RejectedExecutionException x) {
                    fail(HttpResponseStatus.SERVICE_UNAVAILABLE, "Server overloaded, retry later");
                }
            });
            return;
        }
        handle(batch);
    }

    /** Hands the batch to the core; a reply it holds (a connect) is cancelled if the connection closes first. */
    void handle(List<ServerMessage.Mutable> batch) {
        InetSocketAddress remote = context.getRemoteAddress();
        // A session made by a request without the cookie belongs to the cookie this response sets.
        String sessionBrowser = browserId != null ? browserId : newBrowserId;
        Connection core = shared.bayeux().newConnection(new HttpEndpoint(context.getTransportName(), browserId, sessionBrowser,
                userAgent, remote, context, connection.holds()));
        Scheduler.Cancellable cancellable = core.handle(batch, this);
        if (!done) {
            connection.holding(cancellable);
        }
    }

    /** The core's replies. */
    @Override
    public void accept(List<ServerMessage> messages) {
        byte[] json;
        try {
            if (encoded) {
                List<byte[]> arrays = new ArrayList<>(messages.size());
                for (ServerMessage message : messages) {
                    arrays.add(shared.bayeux().encodeArray(message));
                }
                writeEncoded(arrays, EncodedResponse.bodyLength(arrays) >= gzipFrom);
                return;
            }
            json = shared.bayeux().encode(messages);
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
        String setCookie = newBrowserId == null ? null : shared.browserCookie().setCookie(newBrowserId, connection.secure);
        LoopOutbox outbox = connection.outbox(shared.outboxes());
        GzipCompressors gzip = gzipped ? gzipper.compressors() : null;
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
        connection.answered();
    }

    private void write(FullHttpResponse response) {
        answered();
        if (newBrowserId != null) {
            response.headers().add(HttpHeaderNames.SET_COOKIE, shared.browserCookie().setCookie(newBrowserId, connection.secure));
        }
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes());
        LoopOutbox outbox = connection.outbox(shared.outboxes());
        if (keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            outbox.write(ctx.channel(), () -> ctx.write(response));
        } else {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            outbox.write(ctx.channel(), () -> ctx.write(response).addListener(ChannelFutureListener.CLOSE));
        }
    }
}
