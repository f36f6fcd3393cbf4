package io.bayeux.transport;

import io.bayeux.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The server's count of its WebSocket frames and flushes ({@link NettyBayeuxServer#writeCounts()}), over real sockets. */
class WriteCountsIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private NettyBayeuxServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void aBroadcastToThreeSubscribersIsThreeFramesAndThreeFlushes() throws Exception {
        server = NettyBayeuxServer.builder().port(0).ioThreads(2).websocketCompression(false).build().start();
        List<RawWebSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                sockets.add(subscribe(RawWebSocket.open(server.port(), server.uri().getPath()), "/chat"));
            }
            NettyBayeuxServer.WriteCounts before = server.writeCounts();

            server.bayeux().getChannel("/chat").publish(null, "hello");
            for (RawWebSocket socket : sockets) {
                nextDelivery(socket, "/chat");
            }

            // Each loop counts before it flushes: what the readers got is counted, soon if not yet seen.
            NettyBayeuxServer.WriteCounts after = Await.until(WAIT, server::writeCounts,
                    counts -> counts.frames() - before.frames() >= 3 && counts.flushes() - before.flushes() >= 3, "3 frames and 3 flushes");
            assertEquals(3, after.frames() - before.frames(), "one frame per subscriber");
            assertEquals(3, after.flushes() - before.flushes(), "one flush per subscriber");
        } finally {
            for (RawWebSocket socket : sockets) {
                socket.close();
            }
        }
    }

    @Test
    void aServerNotStartedCountsNothing() {
        NettyBayeuxServer idle = NettyBayeuxServer.builder().port(0).build();
        assertEquals(new NettyBayeuxServer.WriteCounts(0, 0), idle.writeCounts());
        idle.stop();
    }

    /** Handshakes, subscribes to {@code channel} and leaves a connect held. */
    private static RawWebSocket subscribe(RawWebSocket socket, String channel) throws IOException {
        send(socket, "[{\"id\":\"h\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\"]}]");
        String clientId = (String) reply(socket, "h").get("clientId");
        send(socket, "[{\"id\":\"s\",\"channel\":\"/meta/subscribe\",\"clientId\":\"" + clientId + "\",\"subscription\":\"" + channel + "\"}]");
        assertEquals(true, reply(socket, "s").get("successful"));
        send(socket, "[{\"id\":\"c\",\"channel\":\"/meta/connect\",\"clientId\":\"" + clientId + "\",\"connectionType\":\"websocket\"}]");
        assertEquals(true, reply(socket, "c").get("successful"));
        send(socket, "[{\"id\":\"c2\",\"channel\":\"/meta/connect\",\"clientId\":\"" + clientId + "\",\"connectionType\":\"websocket\"}]");
        return socket;
    }

    private static void send(RawWebSocket socket, String json) throws IOException {
        socket.send(RawWebSocket.TEXT, json.getBytes(StandardCharsets.UTF_8), true, false);
    }

    private static Map<String, Object> reply(RawWebSocket socket, String id) throws IOException {
        while (true) {
            for (Map<String, Object> message : RawClient.parseMessages(socket.read().payload())) {
                if (id.equals(message.get("id")) && message.containsKey("successful")) {
                    return message;
                }
            }
        }
    }

    private static void nextDelivery(RawWebSocket socket, String channel) throws IOException {
        while (true) {
            for (Map<String, Object> message : RawClient.parseMessages(socket.read().payload())) {
                if (channel.equals(message.get("channel")) && message.containsKey("data")) {
                    return;
                }
            }
        }
    }
}
