package io.bayeux.transport;

import io.bayeux.common.json.JacksonJsonCodec;
import io.bayeux.server.BayeuxServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code allowedTransports} over real sockets: what is not allowed is refused, clearly, and the rest works. */
class AllowedTransportsIT {
    private static final JacksonJsonCodec JSON = new JacksonJsonCodec();
    private NettyBayeuxServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    private NettyBayeuxServer start(NettyBayeuxServer.Builder builder, List<String> allowed) {
        server = builder.port(0).bayeuxConfig(BayeuxServerConfig.builder().allowedTransports(allowed).build()).build().start();
        return server;
    }

    @Test
    void aWebSocketOnlyServerRefusesLongPollingAndServesWebSocket() throws Exception {
        start(NettyBayeuxServer.builder(), List.of("websocket"));

        try (RawClient longPolling = new RawClient(server.uri(), false).open();
             RawClient websocket = new RawClient(server.uri(), true).open();
             RawClient subscriber = new RawClient(server.uri(), true).open()) {
            Map<String, Object> refused = longPolling.handshake();
            assertEquals(false, refused.get("successful"));
            assertEquals("403:long-polling:transport_not_allowed", refused.get("error"));
            assertEquals(List.of("websocket"), refused.get("supportedConnectionTypes"));
            assertEquals("none", ((Map<?, ?>) refused.get("advice")).get("reconnect"));
            assertTrue(server.bayeux().getSessions().isEmpty(), "no session was made");

            Map<String, Object> accepted = websocket.handshake();
            assertEquals(true, accepted.get("successful"));
            assertEquals(List.of("websocket"), accepted.get("supportedConnectionTypes"));
            subscriber.handshake();
            subscriber.connect();
            assertEquals(true, RawClient.reply(subscriber.send(Map.of("channel", "/meta/subscribe", "subscription", "/room")), "/meta/subscribe").get("successful"));

            // The WebSocket session's clientId over long-polling: refused, and nothing reaches the room.
            String clientId = websocket.clientId();
            for (Map<String, Object> message : List.of(
                    Map.<String, Object>of("channel", "/meta/connect", "connectionType", "long-polling", "clientId", clientId),
                    Map.<String, Object>of("channel", "/room", "data", "over long-polling", "clientId", clientId))) {
                Map<String, Object> reply = RawClient.reply(longPolling.send(message), (String) message.get("channel"));
                assertEquals(false, reply.get("successful"), reply::toString);
                assertEquals("403:long-polling:transport_not_allowed", reply.get("error"));
                assertEquals("handshake", ((Map<?, ?>) reply.get("advice")).get("reconnect"));
            }
            assertEquals(true, RawClient.reply(websocket.send(Map.of("channel", "/room", "data", "over websocket")), "/room").get("successful"));
            assertEquals("over websocket", subscriber.nextDelivery("/room").get("data"), "the first delivery is the allowed publish");
        }
    }

    @Test
    void aLongPollingOnlyServerRefusesTheUpgradeNamingTheAllowedTransports() throws Exception {
        start(NettyBayeuxServer.builder(), List.of("long-polling"));
        URI ws = URI.create(server.uri().toString().replaceFirst("^http", "ws"));

        try (HttpClient http = HttpClient.newHttpClient()) {
            ExecutionException failure = assertThrows(ExecutionException.class, () -> http.newWebSocketBuilder()
                    .buildAsync(ws, new WebSocket.Listener() {
                    }).get(5, TimeUnit.SECONDS));
            WebSocketHandshakeException refused = assertInstanceOf(WebSocketHandshakeException.class, failure.getCause());
            assertEquals(400, refused.getResponse().statusCode());
            String body = String.valueOf(refused.getResponse().body());
            assertTrue(body.contains("\"status\":400") && body.contains("allowed transports: long-polling"), body);
        }

        try (RawClient client = new RawClient(server.uri(), false).open()) {
            Map<String, Object> handshake = client.handshake();
            assertEquals(true, handshake.get("successful"));
            assertEquals(List.of("long-polling"), handshake.get("supportedConnectionTypes"));
            assertEquals(true, RawClient.reply(client.connect(), "/meta/connect").get("successful"));
        }
    }

    @Test
    void callbackPollingIsRefusedWhenJsonpIsOnButTheTransportIsNotAllowed() throws Exception {
        start(NettyBayeuxServer.builder().jsonp(true), List.of("long-polling"));

        Map<String, Object> reply = jsonpHandshake();

        assertEquals(false, reply.get("successful"));
        assertEquals("403:callback-polling:transport_not_allowed", reply.get("error"));
        assertEquals(List.of("long-polling"), reply.get("supportedConnectionTypes"));
    }

    @Test
    void callbackPollingIsServedWhenAllowed() throws Exception {
        start(NettyBayeuxServer.builder().jsonp(true), List.of("long-polling", "callback-polling"));

        assertEquals(true, jsonpHandshake().get("successful"));
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> jsonpHandshake() throws Exception {
        String message = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"callback-polling\"]}]";
        URI uri = URI.create(server.uri() + "?jsonp=cb&message=" + URLEncoder.encode(message, StandardCharsets.UTF_8));
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, response.statusCode(), response.body());
            String body = response.body();
            assertTrue(body.startsWith("cb(") && body.endsWith(");"), body);
            List<Map<String, Object>> replies = (List<Map<String, Object>>) JSON.parse(
                    body.substring(3, body.length() - 2).getBytes(StandardCharsets.UTF_8));
            return RawClient.reply(replies, "/meta/handshake");
        }
    }
}
