package io.bayeux.transport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An application's HTTP routes on the server's own port, beside the Bayeux endpoint and the static files. */
class HttpRouteIT {
    @TempDir
    Path temp;
    private NettyBayeuxServer server;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final AtomicReference<HttpRoute.Request> seen = new AtomicReference<>();
    private final AtomicReference<String> thread = new AtomicReference<>();

    @BeforeEach
    void start() throws Exception {
        Path root = Files.createDirectory(temp.resolve("www"));
        Files.writeString(root.resolve("shadowed.txt"), "the file");
        server = NettyBayeuxServer.builder().port(0).staticRoot(root.toString())
                .route("/echo", request -> {
                    seen.set(request);
                    thread.set(Thread.currentThread().getName());
                    return HttpRoute.Reply.json(201, "{\"name\":\"" + request.parameter("name") + "\"}").withHeader("X-Route", "echo");
                })
                .route("/shadowed.txt", request -> HttpRoute.Reply.text(200, "the route"))
                .route("/broken", request -> {
                    throw new IllegalStateException("broken on purpose");
                })
                .route("/local", ((HttpRoute) request -> HttpRoute.Reply.text(200, "local")).loopbackOnly())
                .build().start();
    }

    @AfterEach
    void stop() {
        http.shutdownNow();
        server.stop();
    }

    @Test
    void aRouteGetsTheWholeRequestOnTheExecutorAndItsReplyIsSentAsItSays() throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri("/echo?name=ada&name=bob&x=%2F"))
                .header("X-Trace", "t1").POST(HttpRequest.BodyPublishers.ofString("the body")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(201, response.statusCode());
        assertEquals("{\"name\":\"ada\"}", response.body());
        assertEquals("application/json", response.headers().firstValue("Content-Type").orElse(""));
        assertEquals("echo", response.headers().firstValue("X-Route").orElse(""));
        HttpRoute.Request request = seen.get();
        assertEquals("POST", request.method());
        assertEquals("/echo", request.path());
        assertEquals(List.of("ada", "bob"), request.parameters().get("name"));
        assertEquals("/", request.parameter("x"));
        assertEquals("t1", request.header("x-trace"));
        assertEquals("t1", request.header("X-TRACE"));
        assertArrayEquals("the body".getBytes(StandardCharsets.UTF_8), request.body());
        assertTrue(request.fromLoopback(), request.remoteAddress().toString());
        assertTrue(thread.get().startsWith("bayeux-app-"), "a route runs on the executor, not on an event loop: " + thread.get());
    }

    @Test
    void aHeadRequestGetsTheHeadersWithoutTheBody() throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri("/echo?name=x")).method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(201, response.statusCode());
        assertEquals("", response.body());
        assertEquals("HEAD", seen.get().method());
    }

    @Test
    void aRouteWinsOverAStaticFileOfTheSamePath() throws Exception {
        assertEquals("the route", get("/shadowed.txt").body());
    }

    @Test
    void aRouteThatThrowsIsAnswered500AndTheConnectionStaysUsable() throws Exception {
        HttpResponse<String> broken = get("/broken");
        assertEquals(500, broken.statusCode());
        assertTrue(broken.body().contains("/broken"), broken.body());
        assertFalse(broken.body().contains("on purpose"), "the exception stays in the log: " + broken.body());
        assertEquals(201, get("/echo?name=after").statusCode());
    }

    @Test
    void aPathWithoutARouteIsStill404() throws Exception {
        assertEquals(404, get("/nothing-here").statusCode());
    }

    @Test
    void aLoopbackOnlyRouteAnswersLoopbackPeersAndRefusesOthers() throws Exception {
        HttpRoute local = request -> HttpRoute.Reply.text(200, "inside");
        HttpRoute guarded = local.loopbackOnly();
        HttpRoute.Request fromLoopback = new HttpRoute.Request("GET", "/x", Map.of(), Map.of(), new byte[0], new InetSocketAddress("127.0.0.9", 4000));
        HttpRoute.Request fromAfar = new HttpRoute.Request("GET", "/x", Map.of(), Map.of(), new byte[0], new InetSocketAddress("192.0.2.7", 4000));
        assertEquals(200, guarded.answer(fromLoopback).status());
        assertEquals(403, guarded.answer(fromAfar).status());
        assertEquals("local", get("/local").body());
    }

    @Test
    void aRouteOnTheEndpointOrTwiceOnOnePathIsRefusedWhenBuilt() {
        var onEndpoint = NettyBayeuxServer.builder().path("/bayeux").route("/bayeux/metrics", request -> HttpRoute.Reply.text(200, ""));
        assertTrue(assertThrows(IllegalArgumentException.class, onEndpoint::build).getMessage().contains("/bayeux/metrics"));
        var twice = NettyBayeuxServer.builder().route("/a", request -> HttpRoute.Reply.text(200, ""));
        assertThrows(IllegalArgumentException.class, () -> twice.route("/a", request -> HttpRoute.Reply.text(200, "")));
        assertThrows(IllegalArgumentException.class, () -> twice.route("relative", request -> HttpRoute.Reply.text(200, "")));
        assertThrows(IllegalArgumentException.class, () -> HttpRoute.Reply.text(700, "no such status"));
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }
}
