package io.bayeux.transport;

import io.bayeux.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * permessage-deflate with a compression context per connection ({@link WebSocketCompression.Context}),
 * over real sockets: negotiated only with the clients that allow it, each connection's stream
 * inflated by a client inflater that keeps its context, across the release of the server's
 * deflater while idle, side by side with clients of the shared compression and plain ones.
 */
class WebSocketCompressionContextIT {
    private static final Duration WAIT = Duration.ofSeconds(10);
    /** Long enough that a busy connection is not found idle between two of its messages, even on a loaded machine. */
    private static final Duration RELEASE = Duration.ofSeconds(1);
    private static final String[] WORDS = "sure thanks see you at lunch tomorrow the meeting is fixed deploy today later okay great idea".split(" ");
    private NettyBayeuxServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    private void start(boolean context) {
        WebSocketCompression.Context settings = new WebSocketCompression.Context(context, 15, 11, RELEASE);
        server = NettyBayeuxServer.builder().port(0).ioThreads(2)
                .websocketCompression(WebSocketCompression.DEFAULT.withContext(settings)).build().start();
    }

    private RawWebSocket open(String... extensions) throws IOException {
        List<String> headers = new ArrayList<>();
        for (String extension : extensions) {
            headers.add("Sec-WebSocket-Extensions: " + extension);
        }
        return RawWebSocket.open(server.port(), server.uri().getPath(), headers);
    }

    private static String extensions(RawWebSocket socket) {
        List<String> values = socket.upgradeHeaders().get("sec-websocket-extensions");
        return values == null ? null : String.join(", ", values);
    }

    /** Chat text of about 50 characters, different for each {@code i}. */
    private static String chat(int i) {
        StringBuilder text = new StringBuilder();
        for (int w = 0; text.length() < 50; w++) {
            text.append(WORDS[(i * 7 + w * 3 + w * w) % WORDS.length]).append(' ');
        }
        return text.append(i).toString();
    }

    @Test
    void contextIsKeptOnlyForClientsThatDoNotAskForServerNoContextTakeover() throws Exception {
        start(true);
        try (RawWebSocket keeping = open("permessage-deflate; client_max_window_bits");
             RawWebSocket refusing = open("permessage-deflate; server_no_context_takeover")) {
            assertEquals("permessage-deflate; client_no_context_takeover; client_max_window_bits=15", extensions(keeping));
            assertEquals("permessage-deflate; server_no_context_takeover; client_no_context_takeover", extensions(refusing));
        }
    }

    @Test
    void withContextOffEveryClientGetsNoContextTakeover() throws Exception {
        start(false);
        try (RawWebSocket socket = open("permessage-deflate")) {
            assertEquals("permessage-deflate; server_no_context_takeover; client_no_context_takeover", extensions(socket));
        }
        assertEquals(0, server.websocketCompressionContexts());
    }

    @Test
    void aStreamInflatesWithTheClientsContextAcrossTheReleaseOfTheServersDeflater() throws Exception {
        start(true);
        try (Client client = new Client(open("permessage-deflate")).subscribe("/chat")) {
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 20; i++) {
                    server.bayeux().getChannel("/chat").publish(null, chat(round * 100 + i));
                    assertEquals(chat(round * 100 + i), client.nextData("/chat"));
                }
                assertTrue(client.compressed > 0, "compressed frames");
                assertEquals(1, server.websocketCompressionContexts(), "the connection holds its deflater while busy");
                // Idle (its connect held), the connection drops its deflater; the next messages start a fresh stream.
                Await.until(WAIT, () -> server.websocketCompressionContexts() == 0, () -> "the idle connection's deflater dropped");
            }
        }
    }

    @Test
    void aBroadcastReachesContextSharedAndPlainClientsAtOnce() throws Exception {
        start(true);
        try (Client keeping = new Client(open("permessage-deflate")).subscribe("/chat");
             Client shared = new Client(open("permessage-deflate; server_no_context_takeover")).subscribe("/chat");
             Client plain = new Client(open()).subscribe("/chat")) {
            int plainBytes = 0;
            int keepingBytes = 0;
            int sharedBytes = 0;
            for (int i = 0; i < 60; i++) {
                String text = chat(i);
                server.bayeux().getChannel("/chat").publish(null, text);
                assertEquals(text, keeping.nextData("/chat"));
                assertEquals(text, shared.nextData("/chat"));
                assertEquals(text, plain.nextData("/chat"));
                if (i >= 10) {
                    keepingBytes += keeping.lastPayload;
                    sharedBytes += shared.lastPayload;
                    plainBytes += plain.lastPayload;
                }
            }
            assertEquals(0, plain.compressed);
            // Chat messages of about 150 bytes shrink by a few percent alone, and several times with the context.
            assertTrue(keepingBytes * 2 < plainBytes, "with a context: " + keepingBytes + " bytes of " + plainBytes);
            assertTrue(keepingBytes * 2 < sharedBytes, "with a context: " + keepingBytes + " bytes, shared: " + sharedBytes);
            assertFalse(sharedBytes * 2 < plainBytes, "shared: " + sharedBytes + " bytes of " + plainBytes);
        }
    }

    @Test
    void subscribersOfDifferentRoomsEachInflateEveryBroadcastWithTheirOwnStreamsWhateverTheyJoinedLate() throws Exception {
        start(true);
        try (Client both = new Client(open("permessage-deflate")).subscribe("/chat/a");
             Client b = new Client(open("permessage-deflate")).subscribe("/chat/b");
             Client late = new Client(open("permessage-deflate")).subscribe("/chat/a");
             Client small = new Client(open("permessage-deflate; server_max_window_bits=9")).subscribe("/chat/b")) {
            assertTrue(extensions(small.socket).contains("server_max_window_bits=9"), extensions(small.socket));
            both.join("/chat/b");
            int plainBytes = 0;
            int bothBytes = 0;
            for (int i = 0; i < 120; i++) {
                if (i == 60) {
                    // Joins a room whose last messages it was never sent: those matches go as literals to it.
                    late.join("/chat/b");
                }
                String room = i % 2 == 0 ? "/chat/a" : "/chat/b";
                String text = chat(i);
                server.bayeux().getChannel(room).publish(null, text);
                assertEquals(text, both.nextData(room), "message " + i);
                bothBytes += both.lastPayload;
                plainBytes += both.lastInflated;
                if (room.equals("/chat/a") || i >= 60) {
                    assertEquals(text, late.nextData(room), "message " + i);
                }
                if (room.equals("/chat/b")) {
                    assertEquals(text, b.nextData(room), "message " + i);
                    assertEquals(text, small.nextData(room), "message " + i);
                }
            }
            assertTrue(both.compressed >= 120 && late.compressed >= 90 && small.compressed >= 60, "compressed frames");
            assertTrue(bothBytes * 2 < plainBytes, bothBytes + " bytes for " + plainBytes);
        }
    }

    @Test
    void aRoomQuietForLongerThanTheReleaseTimeIsMatchedIntoWhileItsSubscriberIsBusyElsewhere() throws Exception {
        start(true);
        try (Client client = new Client(open("permessage-deflate")).subscribe("/chat/quiet")) {
            client.join("/chat/busy");
            server.bayeux().getChannel("/chat/quiet").publish(null, chat(1));
            assertEquals(chat(1), client.nextData("/chat/quiet"));
            // The busy room keeps the connection's state (a message every 20 ms, within its window
            // all along); the quiet one sends nothing for twice the release time.
            int busy = (int) (2 * RELEASE.toMillis() / 20);
            ScheduledExecutorService publisher = Executors.newSingleThreadScheduledExecutor();
            try {
                AtomicInteger next = new AtomicInteger(2);
                publisher.scheduleAtFixedRate(() -> {
                    int i = next.getAndIncrement();
                    if (i < 2 + busy) {
                        server.bayeux().getChannel("/chat/busy").publish(null, chat(i));
                    }
                }, 20, 20, TimeUnit.MILLISECONDS);
                for (int i = 2; i < 2 + busy; i++) {
                    assertEquals(chat(i), client.nextData("/chat/busy"));
                }
            } finally {
                publisher.shutdownNow();
            }
            assertEquals(1, server.websocketCompressionContexts(), "the busy connection kept its state");
            // The quiet room's next message repeats its last one: a match into it, a few bytes.
            server.bayeux().getChannel("/chat/quiet").publish(null, chat(1));
            assertEquals(chat(1), client.nextData("/chat/quiet"));
            assertTrue(client.lastPayload * 3 < client.lastInflated, client.lastPayload + " bytes for " + client.lastInflated);
        }
    }

    /** A Bayeux client over a raw WebSocket whose inflater keeps its context for the connection's life. */
    private static final class Client implements AutoCloseable {
        private final RawWebSocket socket;
        private final Inflater inflater = new Inflater(true);
        private String clientId;
        /** Compressed frames read so far, and the payload length of the last frame with data. */
        int compressed;
        int lastPayload;
        int lastInflated;

        Client(RawWebSocket socket) {
            this.socket = socket;
        }

        private void send(String json) throws IOException {
            socket.send(RawWebSocket.TEXT, json.getBytes(StandardCharsets.UTF_8), true, false);
        }

        /** Handshakes, subscribes to {@code channel} and leaves a connect held. */
        Client subscribe(String channel) throws Exception {
            send("[{\"id\":\"h\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\"]}]");
            clientId = (String) reply("h").get("clientId");
            send("[{\"id\":\"s\",\"channel\":\"/meta/subscribe\",\"clientId\":\"" + clientId + "\",\"subscription\":\"" + channel + "\"}]");
            assertEquals(true, reply("s").get("successful"));
            send("[{\"id\":\"c\",\"channel\":\"/meta/connect\",\"clientId\":\"" + clientId + "\",\"connectionType\":\"websocket\"}]");
            assertEquals(true, reply("c").get("successful"));
            send("[{\"id\":\"c2\",\"channel\":\"/meta/connect\",\"clientId\":\"" + clientId + "\",\"connectionType\":\"websocket\"}]");
            return this;
        }

        /** Subscribes to {@code channel} too, its connect held; nothing else must come meanwhile. */
        void join(String channel) throws Exception {
            send("[{\"id\":\"j\",\"channel\":\"/meta/subscribe\",\"clientId\":\"" + clientId + "\",\"subscription\":\"" + channel + "\"}]");
            assertEquals(true, reply("j").get("successful"));
        }

        private List<Map<String, Object>> read() throws IOException, DataFormatException {
            RawWebSocket.Frame frame = socket.read();
            lastPayload = frame.payload().length;
            if (!frame.rsv1()) {
                return RawClient.parseMessages(frame.payload());
            }
            compressed++;
            byte[] inflated = inflate(frame.payload());
            lastInflated = inflated.length;
            return RawClient.parseMessages(inflated);
        }

        private byte[] inflate(byte[] payload) throws DataFormatException {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] chunk = new byte[1024];
            for (byte[] input : new byte[][]{payload, {0, 0, (byte) 0xFF, (byte) 0xFF}}) {
                inflater.setInput(input);
                for (int n = inflater.inflate(chunk); n > 0; n = inflater.inflate(chunk)) {
                    out.write(chunk, 0, n);
                }
            }
            return out.toByteArray();
        }

        Map<String, Object> reply(String id) throws Exception {
            while (true) {
                for (Map<String, Object> message : read()) {
                    if (id.equals(message.get("id")) && message.containsKey("successful")) {
                        return message;
                    }
                }
            }
        }

        /** The data of the next message of {@code channel}, alone in its frame. */
        Object nextData(String channel) throws Exception {
            while (true) {
                List<Map<String, Object>> messages = read();
                for (Map<String, Object> message : messages) {
                    if (channel.equals(message.get("channel")) && message.containsKey("data")) {
                        assertEquals(1, messages.size(), "one message per frame");
                        return message.get("data");
                    }
                }
            }
        }

        @Override
        public void close() throws IOException {
            inflater.end();
            socket.close();
        }
    }
}
