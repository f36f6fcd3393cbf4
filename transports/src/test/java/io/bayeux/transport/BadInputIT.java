package io.bayeux.transport;

import io.bayeux.common.json.JacksonJsonCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad input over real sockets: each gets a precise error, promptly, and only its own
 * connection suffers.
 */
class BadInputIT {
    private static final JacksonJsonCodec JSON = new JacksonJsonCodec();
    private static final int MAX_MESSAGE_SIZE = 4096;
    private NettyBayeuxServer server;
    private String path;

    @BeforeEach
    void start() {
        server = NettyBayeuxServer.builder().port(0)
                .maxMessageSize(MAX_MESSAGE_SIZE)
                .requestTimeout(Duration.ofMillis(500))
                .build().start();
        path = server.uri().getPath();
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    // --- HTTP

    @Test
    void malformedJsonIsA400WithAJsonBodySayingWhy() throws Exception {
        assertJsonError(postJson("[{\"channel\":\"/meta/handshake\","), 400);
    }

    @Test
    void aBodyThatIsNeitherAnArrayNorAnObjectIsA400() throws Exception {
        assertJsonError(postJson("42"), 400);
        assertJsonError(postJson("\"text\""), 400);
    }

    @Test
    void aMessageWithoutAChannelGetsABayeuxChannelMissingReply() throws Exception {
        RawHttp.Response response = postJson("[{\"id\":\"1\",\"data\":{}}]");
        assertEquals(200, response.status());
        Map<String, Object> reply = single(response);
        assertEquals(false, reply.get("successful"));
        assertEquals("400::channel_missing", reply.get("error"));
    }

    @Test
    void anUnknownMetaChannelIsDeniedCreation() throws Exception {
        try (RawClient client = new RawClient(server.uri(), false).open()) {
            client.handshake();
            Map<String, Object> reply = RawClient.reply(client.send(Map.of("channel", "/meta/foo")), "/meta/foo");
            assertEquals(false, reply.get("successful"));
            assertEquals("403:denied_by_security_policy:channel_create_denied", reply.get("error"));
        }
    }

    @Test
    void aBodyLargerThanTheMaxMessageSizeIsA413() throws Exception {
        byte[] body = ("[{\"channel\":\"/a\",\"data\":\"" + "x".repeat(MAX_MESSAGE_SIZE) + "\"}]").getBytes(StandardCharsets.UTF_8);
        assertJsonError(RawHttp.exchange(server.port(), RawHttp.post(path, "application/json", body)), 413);
    }

    @Test
    void deeplyNestedJsonIsA400() throws Exception {
        String nested = "[".repeat(1000) + "]".repeat(1000);
        assertJsonError(postJson("[{\"channel\":\"/a\",\"data\":" + nested + "}]"), 400);
    }

    @Test
    void wrongMethodsAre405WithAnAllowHeader() throws Exception {
        for (String method : List.of("PUT", "DELETE", "GET")) {
            byte[] body = method.equals("GET") ? null : "[]".getBytes(StandardCharsets.UTF_8);
            RawHttp.Response response = RawHttp.exchange(server.port(), RawHttp.request(method, path, List.of("Content-Type: application/json"), body));
            assertJsonError(response, 405);
            String allow = response.header("Allow");
            assertTrue(allow != null && allow.contains("POST") && !allow.contains(method), method + ": Allow " + allow);
        }
    }

    @Test
    void aCharsetOtherThanUtf8Is415() throws Exception {
        byte[] handshake = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\"}]".getBytes(StandardCharsets.UTF_8);
        for (String contentType : List.of("application/json; charset=ISO-8859-1", "application/json; charset=x-no-such-charset")) {
            assertJsonError(RawHttp.exchange(server.port(), RawHttp.post(path, contentType, handshake)), 415);
        }
    }

    @Test
    void invalidUtf8IsA400() throws Exception {
        byte[] prefix = "[{\"channel\":\"/a\",\"data\":\"".getBytes(StandardCharsets.UTF_8);
        byte[] suffix = "\"}]".getBytes(StandardCharsets.UTF_8);
        byte[] body = new byte[prefix.length + 3 + suffix.length];
        System.arraycopy(prefix, 0, body, 0, prefix.length);
        body[prefix.length] = (byte) 0xC3; // a lead byte followed by no continuation byte
        body[prefix.length + 1] = (byte) 0x28;
        body[prefix.length + 2] = (byte) 0xFF;
        System.arraycopy(suffix, 0, body, prefix.length + 3, suffix.length);
        assertJsonError(RawHttp.exchange(server.port(), RawHttp.post(path, "application/json;charset=UTF-8", body)), 400);
    }

    @Test
    void anOverlongRequestLineIsA414AndOverlargeHeadersA431() throws Exception {
        String longTarget = path + "?x=" + "a".repeat(5000);
        assertJsonError(RawHttp.exchange(server.port(), RawHttp.request("GET", longTarget, List.of(), null)), 414);
        assertJsonError(RawHttp.exchange(server.port(), RawHttp.request("GET", path, List.of("X-Big: " + "b".repeat(9000)), null)), 431);
    }

    @Test
    void anEmptyBatchIsA400() throws Exception {
        assertJsonError(postJson("[]"), 400);
    }

    @Test
    void aRequestThatStopsHalfWayIsA408WithinTheRequestTimeout() throws Exception {
        try (RawHttp http = RawHttp.connect(server.port())) {
            String head = "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n";
            // The server's clock starts when the first bytes arrive: ours before they leave, so that
            // a pause of this thread after writing cannot make the 408 look early.
            long start = System.nanoTime();
            http.write(head.getBytes(StandardCharsets.US_ASCII));
            http.write("[{\"channel".getBytes(StandardCharsets.US_ASCII));
            RawHttp.Response response = http.readResponse();
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
            assertJsonError(response, 408);
            assertTrue(elapsedMillis >= 450 && elapsedMillis < 4_000, "408 after " + elapsedMillis + " ms");
            assertEquals(-1, http.input().read(), "the connection is closed after the 408");
        }
    }

    @Test
    void aRequestThatStopsInItsHeadersIsA408WithinTheRequestTimeout() throws Exception {
        try (RawHttp http = RawHttp.connect(server.port())) {
            long start = System.nanoTime(); // before the bytes that start the server's clock
            http.write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty").getBytes(StandardCharsets.US_ASCII));
            RawHttp.Response response = http.readResponse();
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
            assertJsonError(response, 408);
            assertTrue(elapsedMillis >= 450 && elapsedMillis < 4_000, "408 after " + elapsedMillis + " ms");
            assertEquals(-1, http.input().read(), "the connection is closed after the 408");
        }
    }

    // --- WebSocket

    @Test
    void aBinaryFrameClosesTheWebSocketWith1003() throws Exception {
        try (RawWebSocket socket = RawWebSocket.open(server.port(), path)) {
            socket.send(RawWebSocket.BINARY, "[{\"channel\":\"/meta/handshake\"}]".getBytes(StandardCharsets.UTF_8));
            assertEquals(1003, socket.awaitCloseCode());
        }
    }

    @Test
    void aJunkTextFrameClosesTheWebSocketWith1002() throws Exception {
        try (RawWebSocket socket = RawWebSocket.open(server.port(), path)) {
            socket.sendText("hello, not JSON");
            assertEquals(1002, socket.awaitCloseCode());
        }
    }

    @Test
    void aFrameOfAReservedOpcodeClosesTheWebSocketWith1002() throws Exception {
        try (RawWebSocket socket = RawWebSocket.open(server.port(), path)) {
            socket.send(0x3, "[]".getBytes(StandardCharsets.UTF_8));
            assertEquals(1002, socket.awaitCloseCode());
        }
    }

    @Test
    void aFrameLargerThanTheMaxMessageSizeClosesTheWebSocketWith1009() throws Exception {
        try (RawWebSocket socket = RawWebSocket.open(server.port(), path)) {
            socket.sendText("[{\"channel\":\"/a\",\"data\":\"" + "x".repeat(MAX_MESSAGE_SIZE) + "\"}]");
            assertEquals(1009, socket.awaitCloseCode());
        }
    }

    @Test
    void invalidUtf8InATextFrameClosesTheWebSocketWith1007() throws Exception {
        try (RawWebSocket socket = RawWebSocket.open(server.port(), path)) {
            byte[] frame = "[{\"channel\":\"/a\",\"data\":\"..\"}]".getBytes(StandardCharsets.UTF_8);
            frame[25] = (byte) 0xC3;
            frame[26] = (byte) 0x28;
            socket.send(RawWebSocket.TEXT, frame);
            assertEquals(1007, socket.awaitCloseCode());
        }
    }

    @Test
    void aMessageSentInFragmentsIsHandledAsOne() throws Exception {
        try (RawWebSocket socket = RawWebSocket.open(server.port(), path)) {
            byte[] handshake = "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"id\":\"7\",\"supportedConnectionTypes\":[\"websocket\"]}]"
                    .getBytes(StandardCharsets.UTF_8);
            socket.send(RawWebSocket.TEXT, Arrays.copyOfRange(handshake, 0, 10), false);
            // A control frame may come between fragments.
            socket.send(RawWebSocket.PING, new byte[0]);
            socket.send(RawWebSocket.CONTINUATION, Arrays.copyOfRange(handshake, 10, 40), false);
            socket.send(RawWebSocket.CONTINUATION, Arrays.copyOfRange(handshake, 40, handshake.length), true);
            assertEquals(RawWebSocket.PONG, socket.read().opcode());
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> replies = (List<Map<String, Object>>) JSON.parse(socket.read().payload());
            assertEquals("/meta/handshake", replies.get(0).get("channel"));
            assertEquals("7", replies.get(0).get("id"));
            assertEquals(true, replies.get(0).get("successful"));
        }
    }

    @Test
    void invalidUtf8SplitAcrossFragmentsClosesTheWebSocketWith1007() throws Exception {
        try (RawWebSocket socket = RawWebSocket.open(server.port(), path)) {
            byte[] start = "[{\"channel\":\"/a\",\"data\":\"\u00e9".getBytes(StandardCharsets.UTF_8);
            // The first fragment ends inside a two-byte sequence that the next one does not complete.
            socket.send(RawWebSocket.TEXT, Arrays.copyOf(start, start.length - 1), false);
            socket.send(RawWebSocket.CONTINUATION, "(\"}]".getBytes(StandardCharsets.UTF_8), true);
            assertEquals(1007, socket.awaitCloseCode());
        }
    }

    @Test
    void fragmentsLargerTogetherThanTheMaxMessageSizeCloseTheWebSocketWith1009() throws Exception {
        try (RawWebSocket socket = RawWebSocket.open(server.port(), path)) {
            byte[] half = "x".repeat(MAX_MESSAGE_SIZE / 2 + 1).getBytes(StandardCharsets.UTF_8);
            socket.send(RawWebSocket.TEXT, half, false);
            socket.send(RawWebSocket.CONTINUATION, half, true);
            assertEquals(1009, socket.awaitCloseCode());
        }
    }

    // --- isolation

    @Test
    void otherClientsKeepReceivingAfterEveryKindOfBadInput() throws Exception {
        try (RawClient subscriber = new RawClient(server.uri(), true).open();
             RawClient publisher = new RawClient(server.uri(), false).open()) {
            subscriber.handshake();
            RawClient.reply(subscriber.connect(), "/meta/connect");
            assertEquals(true, RawClient.reply(subscriber.send(Map.of("channel", "/meta/subscribe", "subscription", "/chat/room")), "/meta/subscribe").get("successful"));
            subscriber.sendRaw("[{\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"clientId\":\"" + subscriber.clientId() + "\"}]");

            malformedJsonIsA400WithAJsonBodySayingWhy();
            aBodyThatIsNeitherAnArrayNorAnObjectIsA400();
            aMessageWithoutAChannelGetsABayeuxChannelMissingReply();
            anUnknownMetaChannelIsDeniedCreation();
            aBodyLargerThanTheMaxMessageSizeIsA413();
            deeplyNestedJsonIsA400();
            wrongMethodsAre405WithAnAllowHeader();
            aCharsetOtherThanUtf8Is415();
            invalidUtf8IsA400();
            anEmptyBatchIsA400();
            aRequestThatStopsHalfWayIsA408WithinTheRequestTimeout();
            aRequestThatStopsInItsHeadersIsA408WithinTheRequestTimeout();
            aBinaryFrameClosesTheWebSocketWith1003();
            aJunkTextFrameClosesTheWebSocketWith1002();
            aFrameLargerThanTheMaxMessageSizeClosesTheWebSocketWith1009();
            invalidUtf8InATextFrameClosesTheWebSocketWith1007();

            publisher.handshake();
            assertEquals(true, RawClient.reply(publisher.send(Map.of("channel", "/chat/room", "data", "still here")), "/chat/room").get("successful"));
            assertEquals("still here", subscriber.nextDelivery("/chat/room").get("data"));
            assertTrue(!subscriber.closed().isDone(), "the subscriber's WebSocket is still open");
        }
    }

    // --- helpers

    private RawHttp.Response postJson(String body) throws Exception {
        return RawHttp.exchange(server.port(), RawHttp.post(path, "application/json;charset=UTF-8", body.getBytes(StandardCharsets.UTF_8)));
    }

    @SuppressWarnings("unchecked")
    private static void assertJsonError(RawHttp.Response response, int status) throws Exception {
        assertEquals(status, response.status(), response.text());
        String contentType = response.header("Content-Type");
        assertTrue(contentType != null && contentType.startsWith("application/json"), "Content-Type " + contentType);
        Map<String, Object> body = (Map<String, Object>) JSON.parse(response.body());
        assertEquals(status, ((Number) body.get("status")).intValue(), response.text());
        assertTrue(body.get("message") instanceof String message && !message.isBlank(), response.text());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> single(RawHttp.Response response) throws Exception {
        List<Map<String, Object>> replies = (List<Map<String, Object>>) JSON.parse(response.body());
        assertEquals(1, replies.size(), response.text());
        return replies.get(0);
    }
}
