package io.bayeux.transport.internal.http;

import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.transport.NettyBayeuxServer;
import io.bayeux.transport.ServerSettings;
import io.bayeux.transport.internal.LoopOutbox;
import io.bayeux.transport.internal.websocket.WebSocketShared;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTTP request handling of one connection, on an {@link EmbeddedChannel}: each request is
 * routed to its transport, or answered with the status that says what is wrong with it.
 * Everything runs on the test's thread (the executor runs tasks where they are given).
 */
class HttpRequestHandlerTest {
    private static final String HANDSHAKE = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\",\"callback-polling\"]}]";
    private BayeuxServerImpl bayeux;
    private EmbeddedChannel channel;

    @AfterEach
    void stop() {
        if (channel != null) {
            channel.finishAndReleaseAll();
        }
        if (bayeux != null) {
            bayeux.stop();
        }
    }

    /** A connection of a server that {@code configure} sets up. */
    private EmbeddedChannel connect(UnaryOperator<NettyBayeuxServer.Builder> configure) {
        ServerSettings settings = configure.apply(NettyBayeuxServer.builder()).settings();
        bayeux = new BayeuxServerImpl(settings.bayeux(), Runnable::run).start();
        BrowserCookie cookie = new BrowserCookie(settings.browserCookieName(), settings.browserCookieSameSite());
        LoopOutbox.Registry outboxes = new LoopOutbox.Registry();
        HttpShared shared = new HttpShared(bayeux, settings, Runnable::run, new StaticResources(settings.staticRoots()), cookie, outboxes,
                new WebSocketShared(bayeux, settings, Runnable::run, cookie, outboxes), java.util.Map.of());
        channel = new EmbeddedChannel(new HttpRequestHandler(shared));
        return channel;
    }

    private static FullHttpRequest request(HttpMethod method, String uri) {
        return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, uri);
    }

    private static FullHttpRequest post(String uri, String contentType, String body) {
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, uri,
                Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
        request.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        return request;
    }

    private FullHttpResponse answer(FullHttpRequest request) {
        channel.writeInbound(request);
        channel.runPendingTasks();
        FullHttpResponse response = channel.readOutbound();
        assertNotNull(response, "an answer to " + request.method() + " " + request.uri());
        return response;
    }

    private static String body(FullHttpResponse response) {
        try {
            return response.content().toString(StandardCharsets.UTF_8);
        } finally {
            response.release();
        }
    }

    @Test
    void aPostToTheEndpointIsALongPollHandedToTheCoreAndAnsweredWithItsReplies() {
        connect(b -> b);
        FullHttpResponse response = answer(post("/cometd", "application/json;charset=UTF-8", HANDSHAKE));

        assertEquals(200, response.status().code());
        assertTrue(response.headers().get(HttpHeaderNames.CONTENT_TYPE).startsWith("application/json"));
        assertTrue(response.headers().get(HttpHeaderNames.SET_COOKIE).startsWith("BAYEUX_BROWSER="), "a browser without the cookie gets one");
        String json = body(response);
        assertTrue(json.contains("\"successful\":true"), json);
        assertEquals(1, bayeux.getSessions().size());
    }

    @Test
    void aPathBelowTheEndpointIsTheEndpointToo() {
        connect(b -> b);
        FullHttpResponse response = answer(post("/cometd/handshake", "text/plain", HANDSHAKE));
        assertEquals(200, response.status().code());
        assertTrue(body(response).contains("\"successful\":true"));
    }

    @Test
    void anotherMethodOnTheEndpointIs405AndSaysWhichAreAllowed() {
        connect(b -> b);
        FullHttpResponse put = answer(request(HttpMethod.PUT, "/cometd"));
        assertEquals(405, put.status().code());
        assertEquals("POST, OPTIONS", put.headers().get(HttpHeaderNames.ALLOW));
        put.release();

        FullHttpResponse get = answer(request(HttpMethod.GET, "/cometd?message=%5B%5D"));
        assertEquals(405, get.status().code(), "without JSONP a GET carries no messages");
        get.release();
    }

    @Test
    void aPathOutsideTheEndpointIs404WhenThereAreNoStaticFiles() {
        connect(b -> b);
        FullHttpResponse response = answer(request(HttpMethod.GET, "/elsewhere"));
        assertEquals(404, response.status().code());
        assertTrue(body(response).contains("No resource at /elsewhere"));
    }

    @Test
    void aBodyInAnotherMediaTypeOrCharsetIs415() {
        connect(b -> b);
        FullHttpResponse html = answer(post("/cometd", "text/html", HANDSHAKE));
        assertEquals(415, html.status().code());
        assertTrue(body(html).contains("Unsupported content type 'text/html'"));

        FullHttpResponse latin1 = answer(post("/cometd", "application/json; charset=ISO-8859-1", HANDSHAKE));
        assertEquals(415, latin1.status().code());
        assertTrue(body(latin1).contains("Unsupported charset 'iso-8859-1'"));
        assertTrue(bayeux.getSessions().isEmpty());
    }

    @Test
    void aBodyThatIsNoBatchIs400() {
        connect(b -> b);
        FullHttpResponse malformed = answer(post("/cometd", "application/json", "[{"));
        assertEquals(400, malformed.status().code());
        malformed.release();
        FullHttpResponse empty = answer(post("/cometd", "application/json", "[]"));
        assertEquals(400, empty.status().code());
        assertTrue(body(empty).contains("Empty batch"));
    }

    @Test
    void aFormBodyCarriesItsMessagesInTheMessageField() {
        connect(b -> b);
        String form = "message=" + URLEncoder.encode(HANDSHAKE, StandardCharsets.UTF_8);
        FullHttpResponse response = answer(post("/cometd", HttpHeaderValues.APPLICATION_X_WWW_FORM_URLENCODED.toString(), form));
        assertEquals(200, response.status().code());
        assertTrue(body(response).contains("\"successful\":true"));

        FullHttpResponse none = answer(post("/cometd", HttpHeaderValues.APPLICATION_X_WWW_FORM_URLENCODED.toString(), "other=1"));
        assertEquals(400, none.status().code());
        none.release();
    }

    @Test
    void aStaticFileIsServedWithItsEtagAndUnchangedIs304() {
        connect(b -> b.staticRoot("classpath:/static-test"));
        FullHttpResponse file = answer(request(HttpMethod.GET, "/hello.txt"));
        assertEquals(200, file.status().code());
        String etag = file.headers().get(HttpHeaderNames.ETAG);
        assertNotNull(etag);
        assertFalse(body(file).isEmpty());

        FullHttpRequest again = request(HttpMethod.GET, "/hello.txt");
        again.headers().set(HttpHeaderNames.IF_NONE_MATCH, etag);
        FullHttpResponse unchanged = answer(again);
        assertEquals(304, unchanged.status().code());
        unchanged.release();

        FullHttpResponse missing = answer(request(HttpMethod.GET, "/missing.txt"));
        assertEquals(404, missing.status().code());
        missing.release();
    }

    @Test
    void aJsonpCallbackMustBeAJavaScriptNameAndWrapsTheReply() {
        connect(b -> b.jsonp(true));
        String message = URLEncoder.encode(HANDSHAKE, StandardCharsets.UTF_8);
        FullHttpResponse bad = answer(request(HttpMethod.GET, "/cometd?jsonp=alert(1)&message=" + message));
        assertEquals(400, bad.status().code());
        assertTrue(body(bad).contains("Invalid JSONP callback name"));
        assertTrue(bayeux.getSessions().isEmpty());

        FullHttpResponse wrapped = answer(request(HttpMethod.GET, "/cometd?jsonp=window.cb1&message=" + message));
        assertEquals(200, wrapped.status().code());
        assertTrue(wrapped.headers().get(HttpHeaderNames.CONTENT_TYPE).startsWith("text/javascript"));
        String script = body(wrapped);
        assertTrue(script.startsWith("window.cb1([") && script.endsWith("]);"), script);

        FullHttpResponse put = answer(request(HttpMethod.PUT, "/cometd"));
        assertEquals("GET, POST, OPTIONS", put.headers().get(HttpHeaderNames.ALLOW));
        put.release();
    }

    @Test
    void anUpgradeWhenWebSocketIsOffIs400AndClosesTheConnection() {
        connect(b -> b.websocket(false));
        FullHttpRequest upgrade = request(HttpMethod.GET, "/cometd");
        upgrade.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
        upgrade.headers().set(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET);
        FullHttpResponse response = answer(upgrade);
        assertEquals(400, response.status().code());
        assertTrue(body(response).contains("allowed transports: long-polling"));
        assertFalse(channel.isOpen());
    }

    @Test
    void aRequestTheDecoderCouldNotReadIs400AndClosesTheConnection() {
        connect(b -> b);
        FullHttpRequest broken = request(HttpMethod.GET, "/cometd");
        broken.setDecoderResult(DecoderResult.failure(new IllegalArgumentException("bad header")));
        FullHttpResponse response = answer(broken);
        assertEquals(400, response.status().code());
        response.release();
        assertFalse(channel.isOpen());
        assertNull(channel.readOutbound());
    }
}
