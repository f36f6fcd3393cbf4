package io.bayeux.examples;

import io.bayeux.common.json.JacksonJsonCodec;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The demo's page and services over real HTTP. */
class DemoServerIT {
    private static final JacksonJsonCodec JSON = new JacksonJsonCodec();
    private NettyBayeuxServer server;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void start() {
        server = DemoServer.configure(NettyBayeuxServer.builder().port(0)).build().start();
    }

    @AfterEach
    void stop() {
        server.stop();
        http.close();
    }

    @Test
    void theChatPageIsServedAtTheRoot() throws Exception {
        HttpResponse<String> page = http.send(HttpRequest.newBuilder(server.uri().resolve("/")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, page.statusCode());
        assertTrue(page.headers().firstValue("content-type").orElse("").startsWith("text/html"));
        assertTrue(page.body().contains("chat.js"));
        HttpResponse<String> script = http.send(HttpRequest.newBuilder(server.uri().resolve("/chat.js")).build(), HttpResponse.BodyHandlers.ofString());
        assertTrue(script.headers().firstValue("content-type").orElse("").startsWith("text/javascript"));
        assertTrue(script.body().contains("from '/js/index.js'"), "the page uses the JavaScript client");
    }

    @Test
    void echoRepliesToTheSenderWithTheRequestIdAndMembersAreBroadcast() throws Exception {
        Client alice = new Client();
        alice.handshake();
        List<Map<String, Object>> echo = alice.send(Map.of("channel", "/service/echo", "id", "e1", "data", Map.of("n", 1)));
        Map<String, Object> echoed = echo.stream().filter(m -> m.containsKey("data")).findFirst().orElseThrow();
        assertEquals("e1", echoed.get("id"));
        assertEquals(true, echoed.get("successful"));
        assertEquals(Map.of("n", 1), echoed.get("data"));

        alice.send(Map.of("channel", "/meta/subscribe", "subscription", "/members/lobby"));
        List<Map<String, Object>> joined = alice.send(Map.of("channel", "/service/members",
                "data", Map.of("room", "/chat/lobby", "user", "alice", "action", "join")));
        assertTrue(joined.stream().anyMatch(m -> "/members/lobby".equals(m.get("channel")) && List.of("alice").equals(m.get("data"))), joined.toString());

        Client bob = new Client();
        bob.handshake();
        bob.send(Map.of("channel", "/service/members", "data", Map.of("room", "/chat/lobby", "user", "bob")));
        List<Map<String, Object>> connect = alice.send(Map.of("channel", "/meta/connect", "connectionType", "long-polling", "advice", Map.of("timeout", 0)));
        assertTrue(connect.stream().anyMatch(m -> List.of("alice", "bob").equals(m.get("data"))), connect.toString());
    }

    /** A bare long-polling client; it keeps its browser cookie, to which the server binds its session. */
    private final class Client {
        private String clientId;
        private String cookie;
        private int ids;

        void handshake() throws Exception {
            Map<String, Object> reply = send(Map.of("channel", "/meta/handshake", "version", "1.0",
                    "supportedConnectionTypes", List.of("long-polling"))).get(0);
            clientId = (String) reply.get("clientId");
            send(Map.of("channel", "/meta/connect", "connectionType", "long-polling"));
        }

        @SuppressWarnings("unchecked")
        List<Map<String, Object>> send(Map<String, Object> message) throws Exception {
            Map<String, Object> copy = new LinkedHashMap<>(message);
            copy.putIfAbsent("id", String.valueOf(++ids));
            if (clientId != null) {
                copy.put("clientId", clientId);
            }
            HttpRequest.Builder request = HttpRequest.newBuilder(server.uri()).timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.write(List.of(copy))));
            if (cookie != null) {
                request.header("Cookie", cookie);
            }
            HttpResponse<byte[]> response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
            response.headers().firstValue("Set-Cookie").ifPresent(setCookie -> cookie = setCookie.split(";", 2)[0]);
            assertEquals(200, response.statusCode(), new String(response.body(), StandardCharsets.UTF_8));
            return new ArrayList<>((List<Map<String, Object>>) JSON.parse(response.body()));
        }
    }
}
