package io.bayeux.transport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WebSocketDisabledIT {
    private NettyBayeuxServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void anUpgradeIsRefusedWithAJsonBadRequestWhileLongPollingStillWorks() throws Exception {
        server = NettyBayeuxServer.builder().port(0).websocket(false).build().start();
        URI ws = URI.create(server.uri().toString().replaceFirst("^http", "ws"));
        try (HttpClient http = HttpClient.newHttpClient()) {
            ExecutionException failure = assertThrows(ExecutionException.class, () -> http.newWebSocketBuilder()
                    .buildAsync(ws, new WebSocket.Listener() {
                    }).get(5, TimeUnit.SECONDS));
            WebSocketHandshakeException refused = assertInstanceOf(WebSocketHandshakeException.class, failure.getCause());
            assertEquals(400, refused.getResponse().statusCode());
            assertTrue(String.valueOf(refused.getResponse().body()).contains("\"status\":400"), "JSON body: " + refused.getResponse().body());
        }

        try (RawClient client = new RawClient(server.uri(), false).open()) {
            Map<String, Object> handshake = client.handshake();
            assertEquals(true, handshake.get("successful"));
            assertEquals(List.of("long-polling"), handshake.get("supportedConnectionTypes"), "websocket is no longer offered");
        }
    }

    @Test
    void websocketIsServedByDefault() throws Exception {
        server = NettyBayeuxServer.builder().port(0).build().start();
        try (RawClient client = new RawClient(server.uri(), true).open()) {
            assertEquals(true, client.handshake().get("successful"));
        }
    }
}
