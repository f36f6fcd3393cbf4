package io.bayeux.examples;

import io.bayeux.api.server.HistoryPolicy;
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
        // As the demo runs by default: its rooms and events keep their last 100 messages.
        server = DemoServer.configure(NettyBayeuxServer.builder().port(0))
                .service(DemoServer.history(HistoryPolicy.of(100, Duration.ofMinutes(5)))).build().start();
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
        List<Map<String, Object>> echo = alice.sendThenPoll(Map.of("channel", "/service/echo", "id", "e1", "data", Map.of("n", 1)));
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

    @Test
    @SuppressWarnings("unchecked")
    void theRoomsKeepTheirHistoryWithPositionsAndTheEventsInTheReplayDialect() throws Exception {
        Client alice = new Client();
        alice.handshake();
        Map<String, Object> subscribed = reply(alice.send(Map.of("channel", "/meta/subscribe", "subscription", "/chat/lobby")), "/meta/subscribe");
        Map<String, Object> start = (Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) subscribed.get("ext")).get("history")).get("/chat/lobby");
        Client bob = new Client();
        bob.handshake();
        bob.send(Map.of("channel", "/chat/lobby", "data", Map.of("text", "one")));
        bob.send(Map.of("channel", "/chat/lobby", "data", Map.of("text", "two")));
        bob.send(Map.of("channel", "/event/orders", "data", Map.of("order", 7)));

        // A client that lost alice's session comes back with her position: both messages, in order.
        Client back = new Client();
        back.handshake();
        List<Map<String, Object>> messages = back.sendThenPoll(Map.of("channel", "/meta/subscribe", "subscription", "/chat/lobby",
                "ext", Map.of("recover", Map.of("/chat/lobby", Map.of("offset", start.get("offset"), "epoch", start.get("epoch"))))));
        Map<String, Object> recovered = reply(messages, "/meta/subscribe");
        Map<String, Object> outcome = (Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) recovered.get("ext")).get("history")).get("/chat/lobby");
        assertEquals(true, outcome.get("recovered"), recovered.toString());
        assertEquals(2, outcome.get("replayed"));
        List<Object> texts = messages.stream().filter(m -> "/chat/lobby".equals(m.get("channel")) && m.containsKey("data"))
                .map(m -> ((Map<String, Object>) m.get("data")).get("text")).toList();
        assertEquals(List.of("one", "two"), texts);

        // The events: the replay dialect, everything retained with -2.
        Client replaying = new Client();
        replaying.handshake();
        List<Map<String, Object>> replayed = replaying.sendThenPoll(Map.of("channel", "/meta/subscribe", "subscription", "/event/orders",
                "ext", Map.of("replay", Map.of("/event/orders", -2))));
        assertEquals(true, reply(replayed, "/meta/subscribe").get("successful"));
        Map<String, Object> event = replayed.stream().filter(m -> "/event/orders".equals(m.get("channel")) && m.containsKey("data"))
                .findFirst().orElseThrow();
        Map<String, Object> data = (Map<String, Object>) event.get("data");
        assertEquals(7, data.get("order"));
        assertTrue(((Map<String, Object>) data.get("event")).get("replayId") instanceof Number, "data.event.replayId: " + data);
    }

    private static Map<String, Object> reply(List<Map<String, Object>> messages, String channel) {
        return messages.stream().filter(m -> channel.equals(m.get("channel")) && m.containsKey("successful")).findFirst().orElseThrow();
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

        /**
         * Sends a message, then a connect that is not held: the message's reply, and what was
         * delivered meanwhile (after its first connect, the client's deliveries wait for its next one).
         */
        List<Map<String, Object>> sendThenPoll(Map<String, Object> message) throws Exception {
            List<Map<String, Object>> messages = send(message);
            messages.addAll(send(Map.of("channel", "/meta/connect", "connectionType", "long-polling", "advice", Map.of("timeout", 0))));
            return messages;
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
