package io.bayeux.transport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** CORS preflights, and the allowed origins applied to long-polling and WebSocket upgrades alike. */
class CorsIT {
    private static final String HANDSHAKE = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]";
    private NettyBayeuxServer server;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @AfterEach
    void stop() {
        http.shutdownNow();
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void aPreflightIsAnsweredWithTheOriginTheMethodsTheHeadersAndCredentials() throws Exception {
        server = NettyBayeuxServer.builder().port(0).build().start();
        RawHttp.Response response = RawHttp.exchange(server.port(), RawHttp.request("OPTIONS", server.uri().getPath(), List.of(
                "Origin: http://app.example", "Access-Control-Request-Method: POST",
                "Access-Control-Request-Headers: Content-Type"), null));
        assertEquals(200, response.status());
        assertEquals("http://app.example", response.header("Access-Control-Allow-Origin"));
        assertTrue(lower(response.header("Access-Control-Allow-Methods")).contains("post"), response.headers().toString());
        assertTrue(lower(response.header("Access-Control-Allow-Headers")).contains("content-type"), response.headers().toString());
        assertEquals("true", response.header("Access-Control-Allow-Credentials"));
    }

    @Test
    void aPostFromAnOriginNotAllowedIsRefusedWhileAnAllowedOriginWorks() throws Exception {
        server = NettyBayeuxServer.builder().port(0).allowedOrigins(Set.of("http://good.example")).build().start();

        HttpResponse<String> evil = post("http://evil.example");
        assertEquals(403, evil.statusCode(), evil.body());
        assertTrue(evil.headers().firstValue("Access-Control-Allow-Origin").isEmpty());

        HttpResponse<String> good = post("http://good.example");
        assertEquals(200, good.statusCode(), good.body());
        assertEquals("http://good.example", good.headers().firstValue("Access-Control-Allow-Origin").orElse(null));
        assertTrue(good.body().contains("\"successful\":true"), good.body());
    }

    @Test
    void aPreflightFromAnOriginNotAllowedGetsNoCorsHeaders() throws Exception {
        server = NettyBayeuxServer.builder().port(0).allowedOrigins(Set.of("http://good.example")).build().start();
        RawHttp.Response response = RawHttp.exchange(server.port(), RawHttp.request("OPTIONS", server.uri().getPath(), List.of(
                "Origin: http://evil.example", "Access-Control-Request-Method: POST"), null));
        assertNull(response.header("Access-Control-Allow-Origin"), response.headers().toString());
        assertNull(response.header("Access-Control-Allow-Credentials"), response.headers().toString());
    }

    @Test
    void aWebSocketUpgradeFromAnOriginNotAllowedIsRefusedWhileAnAllowedOriginWorks() throws Exception {
        server = NettyBayeuxServer.builder().port(0).allowedOrigins(Set.of("http://good.example")).build().start();
        URI ws = URI.create(server.uri().toString().replaceFirst("^http", "ws"));

        ExecutionException refused = assertThrows(ExecutionException.class, () -> http.newWebSocketBuilder()
                .header("Origin", "http://evil.example").buildAsync(ws, new WebSocket.Listener() {
                }).get(5, TimeUnit.SECONDS));
        WebSocketHandshakeException handshake = assertInstanceOf(WebSocketHandshakeException.class, refused.getCause());
        assertEquals(403, handshake.getResponse().statusCode());

        WebSocket accepted = http.newWebSocketBuilder().header("Origin", "http://good.example")
                .buildAsync(ws, new WebSocket.Listener() {
                }).get(5, TimeUnit.SECONDS);
        accepted.abort();
    }

    @Test
    void aRawWebSocketUpgradeFromAnOriginNotAllowedIsA403() throws Exception {
        server = NettyBayeuxServer.builder().port(0).allowedOrigins(Set.of("http://good.example")).build().start();
        String path = server.uri().getPath();
        assertEquals(403, RawWebSocket.upgradeResponse(server.port(), path, List.of("Origin: http://evil.example")).status());
        assertEquals(101, RawWebSocket.upgradeResponse(server.port(), path, List.of("Origin: http://good.example")).status());
    }

    private HttpResponse<String> post(String origin) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(server.uri()).timeout(Duration.ofSeconds(5))
                .header("Content-Type", "application/json").header("Origin", origin)
                .POST(HttpRequest.BodyPublishers.ofString(HANDSHAKE, StandardCharsets.UTF_8)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static String lower(String value) {
        return value == null ? "" : value.toLowerCase(Locale.ROOT);
    }
}
