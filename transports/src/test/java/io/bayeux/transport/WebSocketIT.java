package io.bayeux.transport;

import io.bayeux.api.Promise;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.common.json.JacksonJsonCodec;
import io.bayeux.server.BayeuxServerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The WebSocket transport over real sockets: sessions moving from HTTP, batching into frames, expiry on close. */
class WebSocketIT {
    private static final JacksonJsonCodec JSON = new JacksonJsonCodec();
    private NettyBayeuxServer server;
    private final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).connectTimeout(Duration.ofSeconds(5)).build();
    private final BlockingQueue<List<Map<String, Object>>> frames = new LinkedBlockingQueue<>();
    private WebSocket socket;

    @AfterEach
    void stop() {
        if (socket != null) {
            socket.abort();
        }
        http.shutdownNow();
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void aSessionThatHandshookOverHttpContinuesOverAWebSocket() throws Exception {
        server = NettyBayeuxServer.builder().port(0).build().start();
        String clientId = httpHandshake();
        openWebSocket();

        assertEquals(true, awaitReply(send("/meta/connect", clientId, "\"connectionType\":\"websocket\""), "/meta/connect").get("successful"));
        assertEquals(true, awaitReply(send("/meta/subscribe", clientId, "\"subscription\":\"/news\""), "/meta/subscribe").get("successful"));
        server.bayeux().getChannel("/news").publish(null, "over the socket");
        assertEquals("over the socket", awaitDelivery("/news").get("data"));
        assertEquals("websocket", server.bayeux().getSession(clientId).getTransportName());
    }

    @Test
    void withAHandshakePerConnectionASessionFromHttpIsUnknownOverTheWebSocket() throws Exception {
        server = NettyBayeuxServer.builder().port(0).handshakePerConnection(true).build().start();
        String clientId = httpHandshake();
        openWebSocket();

        Map<String, Object> reply = awaitReply(send("/meta/connect", clientId, "\"connectionType\":\"websocket\""), "/meta/connect");
        assertEquals(false, reply.get("successful"), reply.toString());
        assertEquals("402::session_unknown", reply.get("error"));

        // A handshake on this connection makes it usable.
        socket.sendText("[{\"id\":\"h\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\"]}]", true).get(5, TimeUnit.SECONDS);
        String own = (String) awaitReply("h", "/meta/handshake").get("clientId");
        assertEquals(true, awaitReply(send("/meta/connect", own, "\"connectionType\":\"websocket\""), "/meta/connect").get("successful"));
    }

    @Test
    void withAHandshakePerConnectionEverySessionHandshakenOnTheConnectionIsUsableAndOnlyThose() throws Exception {
        server = NettyBayeuxServer.builder().port(0).handshakePerConnection(true).build().start();
        String fromHttp = httpHandshake();
        openWebSocket();
        // The connection remembers its sessions from the first handshake on: one, then several.
        List<String> own = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            socket.sendText("[{\"id\":\"h" + i + "\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\"]}]", true)
                    .get(5, TimeUnit.SECONDS);
            own.add((String) awaitReply("h" + i, "/meta/handshake").get("clientId"));
            for (String clientId : own) {
                Map<String, Object> reply = awaitReply(send("/meta/subscribe", clientId, "\"subscription\":\"/a" + i + "\""), "/meta/subscribe");
                assertEquals(true, reply.get("successful"), "handshaken here: " + reply);
            }
            Map<String, Object> reply = awaitReply(send("/meta/subscribe", fromHttp, "\"subscription\":\"/a\""), "/meta/subscribe");
            assertEquals("402::session_unknown", reply.get("error"), "handshaken elsewhere: " + reply);
        }
    }

    @Test
    void messagesQueuedInOneBatchGoOutInOneFrame() throws Exception {
        server = NettyBayeuxServer.builder().port(0).build().start();
        openWebSocket();
        String clientId = wsHandshakeAndConnect();
        // The connect a client keeps outstanding.
        send("/meta/connect", clientId, "\"connectionType\":\"websocket\"");

        ServerSession session = server.bayeux().getSession(clientId);
        session.batch(() -> {
            for (int i = 0; i < 20; i++) {
                session.deliver(null, "/queued", i, Promise.noop());
            }
        });

        List<Map<String, Object>> frame = nextFrame();
        List<Object> data = new ArrayList<>();
        for (Map<String, Object> message : frame) {
            if ("/queued".equals(message.get("channel"))) {
                data.add(((Number) message.get("data")).intValue());
            }
        }
        assertEquals(20, data.size(), "one frame with all 20 messages: " + frame);
        for (int i = 0; i < 20; i++) {
            assertEquals(i, data.get(i), "in order: " + data);
        }
    }

    @Test
    void whatOneBatchPublishesReachesEachSubscriberInOneFrameWhileTheBatchTakesTime() throws Exception {
        server = NettyBayeuxServer.builder().port(0).build().start();
        // Application code that takes a little time over each message, on the executor, while the reader's loop is idle.
        pauseOnRoomMessages(message -> Thread.sleep(2));
        try (RawWebSocket reader = RawWebSocket.open(server.port(), server.uri().getPath());
             RawWebSocket publisher = RawWebSocket.open(server.port(), server.uri().getPath())) {
            subscribeAndConnect(reader, "/room");
            publishBatch(publisher, rawHandshake(publisher), "/room", 3);

            assertEquals(List.of(0, 1, 2), nextData(reader, "/room"), "the reader's first frame with the room's messages");
        }
    }

    @Test
    void aBatchWhoseHandlingBlocksHoldsWhatItDeliveredForTheLongestHoldOnly() throws Exception {
        server = NettyBayeuxServer.builder().port(0).build().start();
        CountDownLatch firstRead = new CountDownLatch(1);
        // The second message's listener waits until the reader has the first: were the first held until the batch's end, it would wait in vain.
        pauseOnRoomMessages(message -> {
            if (((Number) message.getData()).intValue() == 1) {
                firstRead.await(5, TimeUnit.SECONDS);
            }
        });
        try (RawWebSocket reader = RawWebSocket.open(server.port(), server.uri().getPath());
             RawWebSocket publisher = RawWebSocket.open(server.port(), server.uri().getPath())) {
            subscribeAndConnect(reader, "/room");
            publishBatch(publisher, rawHandshake(publisher), "/room", 2);

            long start = System.nanoTime();
            assertEquals(List.of(0), nextData(reader, "/room"), "the first message, while the batch is blocked");
            long waitedMillis = (System.nanoTime() - start) / 1_000_000;
            firstRead.countDown();
            assertTrue(waitedMillis < 2_000, "the first message came after " + waitedMillis + " ms");
            assertEquals(List.of(1), nextData(reader, "/room"));
        }
    }

    /** What a listener of /room does with each message before it goes on. */
    private interface Pause {
        void on(ServerMessage message) throws InterruptedException;
    }

    /** A listener of /room (application code, on the executor) that runs {@code pause} on every message. */
    private void pauseOnRoomMessages(Pause pause) {
        server.bayeux().createChannelIfAbsent("/room", channel -> channel.addListener((ServerChannel.MessageListener) (from, to, message) -> {
            try {
                pause.on(message);
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
            return true;
        }));
    }

    /** Handshakes over {@code socket}, subscribes to {@code channel} and leaves a connect outstanding. */
    private static void subscribeAndConnect(RawWebSocket socket, String channel) throws Exception {
        String clientId = rawHandshake(socket);
        socket.sendText("[{\"id\":\"s\",\"channel\":\"/meta/subscribe\",\"clientId\":\"" + clientId + "\",\"subscription\":\"" + channel + "\"}]");
        assertEquals(true, rawReply(socket, "s").get("successful"));
        socket.sendText("[{\"id\":\"c\",\"channel\":\"/meta/connect\",\"clientId\":\"" + clientId + "\",\"connectionType\":\"websocket\"}]");
        assertEquals(true, rawReply(socket, "c").get("successful"));
        // The connect the client keeps outstanding.
        socket.sendText("[{\"id\":\"c2\",\"channel\":\"/meta/connect\",\"clientId\":\"" + clientId + "\",\"connectionType\":\"websocket\"}]");
    }

    /** Publishes {@code count} messages (data 0, 1, ...) to {@code channel} in one batch, in one frame. */
    private static void publishBatch(RawWebSocket socket, String clientId, String channel, int count) throws Exception {
        StringBuilder batch = new StringBuilder("[");
        for (int i = 0; i < count; i++) {
            batch.append(i == 0 ? "" : ",").append("{\"id\":\"p").append(i).append("\",\"channel\":\"").append(channel)
                    .append("\",\"clientId\":\"").append(clientId).append("\",\"data\":").append(i).append('}');
        }
        socket.sendText(batch.append(']').toString());
    }

    /** The data of the messages on {@code channel} in the next frame that carries any. */
    private static List<Object> nextData(RawWebSocket socket, String channel) throws Exception {
        List<Object> data = new ArrayList<>();
        while (data.isEmpty()) {
            for (Map<String, Object> message : parse(socket.read().text())) {
                if (channel.equals(message.get("channel")) && message.containsKey("data")) {
                    data.add(((Number) message.get("data")).intValue());
                }
            }
        }
        return data;
    }

    /** Handshakes over {@code socket}; returns the client id. */
    private static String rawHandshake(RawWebSocket socket) throws Exception {
        socket.sendText("[{\"id\":\"h\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\"]}]");
        return (String) rawReply(socket, "h").get("clientId");
    }

    /** Reads frames from {@code socket} until the reply to the message {@code id}. */
    private static Map<String, Object> rawReply(RawWebSocket socket, String id) throws Exception {
        while (true) {
            for (Map<String, Object> message : parse(socket.read().text())) {
                if (id.equals(message.get("id")) && message.containsKey("successful")) {
                    return message;
                }
            }
        }
    }

    @Test
    void framesOfEverySizeArriveWhole() throws Exception {
        server = NettyBayeuxServer.builder().port(0).build().start();
        openWebSocket();
        String clientId = wsHandshakeAndConnect();
        assertEquals(true, awaitReply(send("/meta/subscribe", clientId, "\"subscription\":\"/sizes\""), "/meta/subscribe").get("successful"));
        send("/meta/connect", clientId, "\"connectionType\":\"websocket\"");

        // Each length field form (7-bit, 16-bit, 64-bit), each side of the shared-payload size, alone and batched.
        int[] sizes = {1, 60, 125, 126, 1000, 1024, 1025, 2000, 65535, 70_000};
        for (int size : sizes) {
            String data = "x".repeat(size);
            server.bayeux().getChannel("/sizes").publish(null, data);
            assertEquals(data, awaitDelivery("/sizes").get("data"), "size " + size);
        }
        ServerSession session = server.bayeux().getSession(clientId);
        session.batch(() -> {
            for (int size : sizes) {
                session.deliver(null, "/sizes", "y".repeat(size), Promise.noop());
            }
        });
        List<String> batched = new ArrayList<>();
        while (batched.size() < sizes.length) {
            for (Map<String, Object> message : nextFrame()) {
                if ("/sizes".equals(message.get("channel"))) {
                    batched.add((String) message.get("data"));
                }
            }
        }
        for (int i = 0; i < sizes.length; i++) {
            assertEquals("y".repeat(sizes[i]), batched.get(i), "batched size " + sizes[i]);
        }
    }

    @Test
    void aSessionWhoseSocketClosedExpiresAfterTheMaxInterval() throws Exception {
        server = NettyBayeuxServer.builder().port(0)
                .bayeuxConfig(BayeuxServerConfig.builder().maxInterval(Duration.ofSeconds(1)).sweepPeriod(Duration.ofMillis(100)).build())
                .build().start();
        CompletableFuture<Boolean> removed = new CompletableFuture<>();
        server.bayeux().addListener(new BayeuxServer.SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, ServerMessage message) {
            }

            @Override
            public void sessionRemoved(ServerSession session, ServerMessage message, boolean timeout) {
                removed.complete(timeout);
            }
        });
        openWebSocket();
        String clientId = wsHandshakeAndConnect();
        send("/meta/connect", clientId, "\"connectionType\":\"websocket\"");
        assertNotNull(server.bayeux().getSession(clientId));

        long closedAt = System.nanoTime();
        socket.abort();
        assertEquals(true, removed.get(5, TimeUnit.SECONDS), "removed by expiry");
        long elapsedMillis = (System.nanoTime() - closedAt) / 1_000_000;
        assertTrue(elapsedMillis >= 900, "expired after " + elapsedMillis + " ms, before the max interval");
        assertNull(server.bayeux().getSession(clientId));
    }

    // --- helpers

    private String httpHandshake() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(server.uri()).timeout(Duration.ofSeconds(5))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\",\"long-polling\"]}]")).build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        Map<String, Object> reply = RawClient.reply(parse(response.body()), "/meta/handshake");
        assertEquals(true, reply.get("successful"), reply.toString());
        return (String) reply.get("clientId");
    }

    private String wsHandshakeAndConnect() throws Exception {
        socket.sendText("[{\"id\":\"h\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\"]}]", true).get(5, TimeUnit.SECONDS);
        String clientId = (String) awaitReply("h", "/meta/handshake").get("clientId");
        assertEquals(true, awaitReply(send("/meta/connect", clientId, "\"connectionType\":\"websocket\""), "/meta/connect").get("successful"));
        return clientId;
    }

    private void openWebSocket() throws Exception {
        URI ws = URI.create(server.uri().toString().replaceFirst("^http", "ws"));
        socket = http.newWebSocketBuilder().buildAsync(ws, new WebSocket.Listener() {
            private final StringBuilder text = new StringBuilder();

            @Override
            public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                text.append(data);
                if (last) {
                    frames.add(parse(text.toString()));
                    text.setLength(0);
                }
                webSocket.request(1);
                return null;
            }
        }).get(5, TimeUnit.SECONDS);
    }

    private int ids;

    /** Sends one message and returns its id. */
    private String send(String channel, String clientId, String fields) throws Exception {
        String id = String.valueOf(++ids);
        socket.sendText("[{\"id\":\"" + id + "\",\"channel\":\"" + channel + "\",\"clientId\":\"" + clientId + "\"," + fields + "}]", true)
                .get(5, TimeUnit.SECONDS);
        return id;
    }

    private List<Map<String, Object>> nextFrame() throws InterruptedException {
        List<Map<String, Object>> frame = frames.poll(5, TimeUnit.SECONDS);
        if (frame == null) {
            throw new AssertionError("No frame within 5 s");
        }
        return frame;
    }

    private Map<String, Object> awaitReply(String id, String channel) throws InterruptedException {
        while (true) {
            for (Map<String, Object> message : nextFrame()) {
                if (id.equals(message.get("id")) && channel.equals(message.get("channel")) && message.containsKey("successful")) {
                    return message;
                }
            }
        }
    }

    private Map<String, Object> awaitDelivery(String channel) throws InterruptedException {
        while (true) {
            for (Map<String, Object> message : nextFrame()) {
                if (channel.equals(message.get("channel")) && message.containsKey("data")) {
                    return message;
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> parse(String json) {
        try {
            return (List<Map<String, Object>>) JSON.parse(json.getBytes(StandardCharsets.UTF_8));
        } catch (Exception x) {
            throw new AssertionError("Not a JSON array of messages: " + json, x);
        }
    }
}
