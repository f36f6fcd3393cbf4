package io.bayeux.transport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Static files next to the Bayeux endpoint: content types, caching, compression, and no way out of the root. */
class StaticFilesIT {
    private static final String INDEX = "<!doctype html><title>Bayeux</title><script src=app.js></script>";
    /** Large enough to be gzipped (bodies under 1,280 bytes are not, by default). */
    private static final String SCRIPT = "console.log('bayeux');\n".repeat(100);
    private static final String STYLE = "body { margin: 0; }\n";
    private static final String SECRET = "the secret outside the root";

    @TempDir
    Path temp;
    private NettyBayeuxServer server;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void start() throws Exception {
        Path root = Files.createDirectory(temp.resolve("www"));
        Files.writeString(root.resolve("index.html"), INDEX);
        Files.writeString(root.resolve("app.js"), SCRIPT);
        Files.writeString(root.resolve("style.css"), STYLE);
        Files.writeString(root.resolve("small.txt"), "small");
        Files.writeString(temp.resolve("secret.txt"), SECRET);
        server = NettyBayeuxServer.builder().port(0).staticRoot(root.toString()).build().start();
    }

    @AfterEach
    void stop() {
        http.shutdownNow();
        server.stop();
    }

    @Test
    void theRootServesIndexHtmlWithAnETagAndCacheControl() throws Exception {
        HttpResponse<byte[]> response = get("/", null, null);
        assertEquals(200, response.statusCode());
        assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("text/html"), response.headers().toString());
        assertEquals(INDEX, new String(response.body(), StandardCharsets.UTF_8));
        assertTrue(response.headers().firstValue("ETag").isPresent(), response.headers().toString());
        assertTrue(response.headers().firstValue("Cache-Control").isPresent(), response.headers().toString());
    }

    @Test
    void scriptsAndStyleSheetsHaveTheirContentTypes() throws Exception {
        HttpResponse<byte[]> script = get("/app.js", null, null);
        assertEquals(200, script.statusCode());
        assertTrue(script.headers().firstValue("Content-Type").orElse("").startsWith("text/javascript"), script.headers().toString());
        assertEquals(SCRIPT, new String(script.body(), StandardCharsets.UTF_8));
        HttpResponse<byte[]> style = get("/style.css", null, null);
        assertEquals(200, style.statusCode());
        assertTrue(style.headers().firstValue("Content-Type").orElse("").startsWith("text/css"), style.headers().toString());
        assertEquals(STYLE, new String(style.body(), StandardCharsets.UTF_8));
    }

    @Test
    void aRequestWithTheCurrentETagIsNotModified() throws Exception {
        String etag = get("/app.js", null, null).headers().firstValue("ETag").orElseThrow();
        HttpResponse<byte[]> response = get("/app.js", etag, null);
        assertEquals(304, response.statusCode());
        assertEquals(0, response.body().length);
        assertEquals(200, get("/app.js", "\"stale\"", null).statusCode());
    }

    @Test
    void pathsThatClimbOutOfTheRootAreNotFound() throws Exception {
        for (String path : List.of("/../secret.txt", "/../../etc/passwd", "/%2e%2e/secret.txt", "/%2e%2e/%2e%2e/etc/passwd",
                "/..%2fsecret.txt", "/%2e%2e%2fsecret.txt", "/..%5csecret.txt", "/app.js/../../secret.txt")) {
            RawHttp.Response response = RawHttp.exchange(server.port(), RawHttp.request("GET", path, List.of(), null));
            assertEquals(404, response.status(), path);
            assertFalse(response.text().contains(SECRET), path);
            assertFalse(response.text().contains("root:"), path);
        }
    }

    @Test
    void responsesAreGzippedWhenTheClientAcceptsIt() throws Exception {
        HttpResponse<byte[]> response = get("/app.js", null, "gzip");
        assertEquals(200, response.statusCode());
        assertEquals("gzip", response.headers().firstValue("Content-Encoding").orElse(null), response.headers().toString());
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(response.body()))) {
            assertEquals(SCRIPT, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        assertTrue(get("/app.js", null, null).headers().firstValue("Content-Encoding").isEmpty());
    }

    @Test
    void smallResponsesAreNotGzippedEvenWhenTheClientAcceptsIt() throws Exception {
        HttpResponse<byte[]> response = get("/small.txt", null, "gzip");
        assertEquals(200, response.statusCode());
        assertTrue(response.headers().firstValue("Content-Encoding").isEmpty(), response.headers().toString());
        assertEquals("small", new String(response.body(), StandardCharsets.UTF_8));
    }

    @Test
    void aClassPathRootServesItsFilesAndNothingAboveIt() throws Exception {
        NettyBayeuxServer classpath = NettyBayeuxServer.builder().port(0).staticRoot("classpath:/static-test").build().start();
        try {
            URI base = URI.create("http://127.0.0.1:" + classpath.port());
            HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(base.resolve("/hello.txt")).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, response.statusCode());
            assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"), response.headers().toString());
            assertEquals("hello from the class path\n", new String(response.body(), StandardCharsets.UTF_8));
            for (String path : List.of("/../simplelogger.properties", "/%2e%2e/simplelogger.properties", "/../io/bayeux/transport/StaticFilesIT.class")) {
                assertEquals(404, RawHttp.exchange(classpath.port(), RawHttp.request("GET", path, List.of(), null)).status(), path);
            }
        } finally {
            classpath.stop();
        }
    }

    private HttpResponse<byte[]> get(String path, String ifNoneMatch, String acceptEncoding) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).timeout(Duration.ofSeconds(5));
        if (ifNoneMatch != null) {
            request.header("If-None-Match", ifNoneMatch);
        }
        if (acceptEncoding != null) {
            request.header("Accept-Encoding", acceptEncoding);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }
}
