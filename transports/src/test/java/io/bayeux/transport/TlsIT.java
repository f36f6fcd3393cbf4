package io.bayeux.transport;

import io.bayeux.common.json.JacksonJsonCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import javax.net.ssl.SSLContext;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Long-polling over https and WebSocket over wss with a self-signed certificate. One server for
 * the class: making the certificate takes a second.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsIT {
    private static final JacksonJsonCodec JSON = new JacksonJsonCodec();
    private NettyBayeuxServer server;
    private HttpClient http;

    @BeforeAll
    void start() throws Exception {
        server = NettyBayeuxServer.builder().port(0).tls(TlsConfig.selfSigned()).build().start();
        SSLContext trustAll = TrustAll.sslContext();
        // Long-polling clients keep the browser cookie: sessions are bound to it.
        http = HttpClient.newBuilder().sslContext(trustAll).cookieHandler(new CookieManager()).connectTimeout(Duration.ofSeconds(5)).build();
    }

    @AfterAll
    void stop() {
        http.shutdownNow();
        server.stop();
    }

    @Test
    void handshakeAndConnectOverHttps() throws Exception {
        assertEquals("https", server.uri().getScheme());
        Map<String, Object> handshake = post("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]");
        assertEquals(true, handshake.get("successful"), handshake.toString());
        Map<String, Object> connect = post("[{\"channel\":\"/meta/connect\",\"connectionType\":\"long-polling\",\"clientId\":\"" + handshake.get("clientId") + "\"}]");
        assertEquals("/meta/connect", connect.get("channel"));
        assertEquals(true, connect.get("successful"), connect.toString());
    }

    @Test
    void handshakeAndConnectOverWss() throws Exception {
        CompletableFuture<String> first = new CompletableFuture<>();
        CompletableFuture<String> second = new CompletableFuture<>();
        URI wss = URI.create(server.uri().toString().replaceFirst("^https", "wss"));
        WebSocket socket = http.newWebSocketBuilder().buildAsync(wss, new WebSocket.Listener() {
            private final StringBuilder text = new StringBuilder();

            @Override
            public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                text.append(data);
                if (last) {
                    (first.isDone() ? second : first).complete(text.toString());
                    text.setLength(0);
                }
                webSocket.request(1);
                return null;
            }
        }).get(5, TimeUnit.SECONDS);
        try {
            socket.sendText("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\"]}]", true).get(5, TimeUnit.SECONDS);
            Map<String, Object> handshake = only(first.get(5, TimeUnit.SECONDS));
            assertEquals(true, handshake.get("successful"), handshake.toString());
            socket.sendText("[{\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"clientId\":\"" + handshake.get("clientId") + "\"}]", true).get(5, TimeUnit.SECONDS);
            Map<String, Object> connect = only(second.get(5, TimeUnit.SECONDS));
            assertEquals("/meta/connect", connect.get("channel"));
            assertEquals(true, connect.get("successful"), connect.toString());
            assertEquals("websocket", server.bayeux().getSession((String) handshake.get("clientId")).getTransportName());
        } finally {
            socket.abort();
        }
    }

    private Map<String, Object> post(String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(server.uri()).timeout(Duration.ofSeconds(5))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        return only(response.body());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> only(String json) throws Exception {
        List<Map<String, Object>> messages = (List<Map<String, Object>>) JSON.parse(json.getBytes(StandardCharsets.UTF_8));
        assertEquals(1, messages.size(), json);
        return messages.get(0);
    }
}
