package io.bayeux.transport;

import io.bayeux.api.server.ServerChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code idleTimeout} over real WebSocket connections: one that reads and writes nothing is
 * closed (1001) once the timeout has passed, never before; one that keeps sending, or that the
 * server keeps writing to, stays open.
 */
class WebSocketIdleTimeoutIT {
    private static final Duration IDLE_TIMEOUT = Duration.ofMillis(1500);
    /** Longer than the idle timeout plus the sweep's period, many times over. */
    private static final long BUSY_MILLIS = 4 * IDLE_TIMEOUT.toMillis();
    private NettyBayeuxServer server;

    private NettyBayeuxServer start() {
        server = NettyBayeuxServer.builder().port(0).idleTimeout(IDLE_TIMEOUT).build().start();
        return server;
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    @Test
    void aWebSocketThatReadsAndWritesNothingIsClosedAfterTheIdleTimeoutAndNotBefore() throws Exception {
        start();
        long opened = System.nanoTime();
        try (RawWebSocket socket = RawWebSocket.open(server.port(), server.uri().getPath())) {
            assertEquals(1001, socket.awaitCloseCode());
            long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - opened);
            assertTrue(elapsedMillis >= IDLE_TIMEOUT.toMillis(), "closed after " + elapsedMillis + " ms");
        }
    }

    @Test
    void theIdleOnesAreClosedWhateverOrderTheOthersLeftIn() throws Exception {
        NettyBayeuxServer server = start();
        List<RawWebSocket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < 9; i++) {
                sockets.add(RawWebSocket.open(server.port(), server.uri().getPath()));
            }
            // Connections leave their loop's sweep from its first place, its middle and its end.
            for (int leaving : new int[]{0, 4, 8, 5}) {
                sockets.get(leaving).close();
            }
            for (int i : new int[]{1, 2, 3, 6, 7}) {
                assertEquals(1001, sockets.get(i).awaitCloseCode(), "socket " + i);
            }
        } finally {
            for (RawWebSocket socket : sockets) {
                socket.close();
            }
        }
    }

    @Test
    void aWebSocketThatKeepsSendingStaysOpen() throws Exception {
        start();
        try (RawWebSocket socket = RawWebSocket.open(server.port(), server.uri().getPath())) {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BUSY_MILLIS);
            int pings = 0;
            while (System.nanoTime() < end) {
                socket.send(RawWebSocket.PING, ("ping " + pings).getBytes(StandardCharsets.UTF_8));
                RawWebSocket.Frame pong = socket.read();
                assertEquals(RawWebSocket.PONG, pong.opcode(), "answer to ping " + pings);
                assertEquals("ping " + pings, pong.text());
                pings++;
                Thread.sleep(100);
            }
            assertStillOpen(socket);
        }
    }

    @Test
    void aWebSocketThatTheServerKeepsWritingToStaysOpen() throws Exception {
        start();
        try (RawClient client = new RawClient(server.uri(), true).open()) {
            client.handshake();
            client.connect();
            assertEquals(true, RawClient.reply(client.send(Map.of("channel", "/meta/subscribe", "subscription", "/feed")),
                    "/meta/subscribe").get("successful"));
            ServerChannel feed = server.bayeux().getChannel("/feed");
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BUSY_MILLIS);
            int published = 0;
            while (System.nanoTime() < end) {
                feed.publish(null, "tick " + published);
                assertEquals("tick " + published, client.nextDelivery("/feed").get("data"));
                published++;
                Thread.sleep(100);
            }
            assertFalse(client.closed().isDone(), "closed with " + client.closed().getNow(null));
            // It only received: now that nothing comes, it is idle, and closed.
            assertEquals(1001, client.closed().get(30, TimeUnit.SECONDS));
        }
    }

    /** Pings and reads the pong (the server answers pings until it closes). */
    private static void assertStillOpen(RawWebSocket socket) throws IOException {
        socket.send(RawWebSocket.PING, "still there?".getBytes(StandardCharsets.UTF_8));
        RawWebSocket.Frame frame = socket.read();
        assertEquals(RawWebSocket.PONG, frame.opcode(), "frame " + frame.opcode() + ": " + frame.text());
    }
}
