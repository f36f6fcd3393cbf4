package io.bayeux.transport;

import io.bayeux.common.json.JacksonJsonCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * permessage-deflate over real sockets: what the upgrade negotiates, a broadcast compressed once
 * for every subscriber that negotiated it (and sent plain to the others), compressed messages
 * from clients, and a zip bomb refused with 1009.
 */
class WebSocketCompressionIT {
    private static final JacksonJsonCodec JSON = new JacksonJsonCodec();
    private static final String ACCEPTED = "permessage-deflate; server_no_context_takeover; client_no_context_takeover";
    private NettyBayeuxServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    private static String extensions(RawWebSocket socket) {
        List<String> values = socket.upgradeHeaders().get("sec-websocket-extensions");
        return values == null ? null : String.join(", ", values);
    }

    private RawWebSocket open(String... extensions) throws IOException {
        List<String> headers = new ArrayList<>();
        for (String extension : extensions) {
            headers.add("Sec-WebSocket-Extensions: " + extension);
        }
        return RawWebSocket.open(server.port(), server.uri().getPath(), headers);
    }

    @Test
    void anOfferIsAcceptedByDefaultWithNoContextTakeoverBothWays() throws Exception {
        server = NettyBayeuxServer.builder().port(0).build().start();
        try (RawWebSocket browser = open("permessage-deflate; client_max_window_bits");
             RawWebSocket narrow = open("permessage-deflate; client_max_window_bits=10; server_no_context_takeover");
             RawWebSocket none = open();
             RawWebSocket fallback = open("permessage-deflate; server_max_window_bits=9, permessage-deflate")) {
            assertEquals(ACCEPTED + "; client_max_window_bits=15", extensions(browser));
            assertEquals(ACCEPTED + "; client_max_window_bits=10", extensions(narrow));
            assertNull(extensions(none));
            assertEquals(ACCEPTED, extensions(fallback), "the first offer asks for a smaller window than the server's: the second is taken");
        }
    }

    @Test
    void anOfferIsDeclinedWhenCompressionIsOff() throws Exception {
        server = NettyBayeuxServer.builder().port(0).websocketCompression(false).build().start();
        try (RawWebSocket socket = open("permessage-deflate")) {
            assertNull(extensions(socket));
        }
    }

    @Test
    void aBroadcastIsCompressedOnceForEverySubscriberThatNegotiatedIt() throws Exception {
        server = NettyBayeuxServer.builder().port(0).ioThreads(2).build().start();
        List<Client> deflating = new ArrayList<>();
        List<Client> plain = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                deflating.add(new Client(open("permessage-deflate")).subscribe("/chat"));
                plain.add(new Client(open()).subscribe("/chat"));
            }
            long before = server.websocketCompressions();
            String text = "a chat message that repeats itself, ".repeat(20);
            server.bayeux().getChannel("/chat").publish(null, text);

            byte[] shared = null;
            for (Client client : deflating) {
                RawWebSocket.Frame frame = client.nextDelivery("/chat");
                assertTrue(frame.rsv1(), "compressed for a client that negotiated permessage-deflate");
                assertTrue(frame.payload().length < text.length() / 4, "compressed to " + frame.payload().length);
                if (shared == null) {
                    shared = frame.payload();
                }
                assertArrayEquals(shared, frame.payload(), "the same compressed bytes for every subscriber");
                assertEquals(text, data(inflate(frame.payload())));
            }
            for (Client client : plain) {
                RawWebSocket.Frame frame = client.nextDelivery("/chat");
                assertFalse(frame.rsv1(), "plain for a client that did not negotiate it");
                assertEquals(text, data(frame.payload()));
            }
            assertEquals(1, server.websocketCompressions() - before, "compressions of the broadcast");
        } finally {
            for (Client client : deflating) {
                client.socket.close();
            }
            for (Client client : plain) {
                client.socket.close();
            }
        }
    }

    @Test
    void aFrameOfSeveralBroadcastsCompressesEachOnceForEverySubscriber() throws Exception {
        server = NettyBayeuxServer.builder().port(0).ioThreads(2).build().start();
        List<Client> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                clients.add(new Client(open("permessage-deflate")).subscribe("/chat"));
            }
            List<io.bayeux.api.server.ServerSession> sessions = new ArrayList<>();
            for (Client client : clients) {
                sessions.add(server.bayeux().getSession(client.clientId));
            }
            List<String> texts = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                texts.add("message " + i + " of a chat that repeats itself, ".repeat(6));
            }
            texts.add("short");
            long before = server.websocketCompressions();
            // Held by each subscriber's batch, the six go out in one frame per subscriber.
            sessions.forEach(io.bayeux.api.server.ServerSession::startBatch);
            for (String text : texts) {
                server.bayeux().getChannel("/chat").publish(null, text);
            }
            sessions.forEach(io.bayeux.api.server.ServerSession::endBatch);

            for (Client client : clients) {
                RawWebSocket.Frame frame = client.nextDelivery("/chat");
                assertTrue(frame.rsv1(), "a frame of several messages is compressed");
                List<Map<String, Object>> messages = RawClient.parseMessages(inflate(frame.payload()));
                List<Object> data = new ArrayList<>();
                for (Map<String, Object> message : messages) {
                    data.add(message.get("data"));
                }
                assertEquals(texts, data, "the six messages, in order, in one frame");
                int plain = JSON.write(messages).length;
                assertTrue(frame.payload().length * 2 < plain, "compressed to " + frame.payload().length + " of " + plain);
            }
            assertEquals(texts.size() - 1, server.websocketCompressions() - before,
                    "each message compressed once, whatever the subscribers and frames it goes in; the short one not at all");
        } finally {
            for (Client client : clients) {
                client.socket.close();
            }
        }
    }

    @Test
    void aMessageBelowTheThresholdGoesUncompressed() throws Exception {
        server = NettyBayeuxServer.builder().port(0).build().start();
        try (RawWebSocket socket = open("permessage-deflate")) {
            Client client = new Client(socket).subscribe("/chat");
            long before = server.websocketCompressions();
            server.bayeux().getChannel("/chat").publish(null, "hi");
            RawWebSocket.Frame frame = client.nextDelivery("/chat");
            assertFalse(frame.rsv1());
            assertEquals("hi", data(frame.payload()));
            assertEquals(before, server.websocketCompressions());
        }
    }

    @Test
    void aCompressedMessageFromTheClientIsHandled() throws Exception {
        server = NettyBayeuxServer.builder().port(0).build().start();
        try (RawWebSocket socket = open("permessage-deflate")) {
            Client client = new Client(socket);
            client.send("[{\"id\":\"h\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\"]}]", true);
            assertEquals(true, client.reply("h").get("successful"));
        }
    }

    @Test
    void aClientThatKeepsContextDespiteBeingToldNotToIsStillUnderstood() throws Exception {
        server = NettyBayeuxServer.builder().port(0).build().start();
        try (RawWebSocket socket = open("permessage-deflate")) {
            Client client = new Client(socket);
            // As Jetty 12's client does: one deflater for the connection, never reset.
            Deflater kept = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
            try {
                client.sendWith(kept, "[{\"id\":\"h\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\"]}]");
                String clientId = (String) client.reply("h").get("clientId");
                for (int i = 0; i < 4; i++) {
                    client.sendWith(kept, "[{\"id\":\"s" + i + "\",\"channel\":\"/meta/subscribe\",\"clientId\":\"" + clientId
                            + "\",\"subscription\":\"/chat/" + i + "\"}]");
                    assertEquals(true, client.reply("s" + i).get("successful"), "subscribe " + i);
                }
            } finally {
                kept.end();
            }
        }
    }

    @Test
    void aZipBombIsRefusedWith1009() throws Exception {
        server = NettyBayeuxServer.builder().port(0).maxMessageSize(64 * 1024).build().start();
        try (RawWebSocket socket = open("permessage-deflate")) {
            // 16 MiB of spaces inside a valid JSON array: about 16 KiB compressed, well within the frame limit.
            byte[] bomb = new byte[16 * 1024 * 1024];
            java.util.Arrays.fill(bomb, (byte) ' ');
            bomb[0] = '[';
            bomb[bomb.length - 1] = ']';
            socket.send(RawWebSocket.TEXT, deflate(bomb), true, true);
            assertEquals(1009, socket.awaitCloseCode());
        }
    }

    /** A Bayeux client over a raw WebSocket that inflates what comes compressed. */
    private static final class Client {
        final RawWebSocket socket;
        private String clientId;

        Client(RawWebSocket socket) {
            this.socket = socket;
        }

        /** Sends {@code json} compressed by {@code deflater}, which keeps its context from one message to the next. */
        void sendWith(Deflater deflater, String json) throws IOException {
            deflater.setInput(json.getBytes(StandardCharsets.UTF_8));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] chunk = new byte[8192];
            int n;
            do {
                n = deflater.deflate(chunk, 0, chunk.length, Deflater.SYNC_FLUSH);
                out.write(chunk, 0, n);
            } while (n == chunk.length);
            byte[] bytes = out.toByteArray();
            socket.send(RawWebSocket.TEXT, java.util.Arrays.copyOf(bytes, bytes.length - 4), true, true);
        }

        void send(String json, boolean compress) throws IOException {
            byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            socket.send(RawWebSocket.TEXT, compress ? deflate(bytes) : bytes, true, compress);
        }

        /** Handshakes, subscribes to {@code channel} and leaves a connect outstanding. */
        Client subscribe(String channel) throws Exception {
            send("[{\"id\":\"h\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\"]}]", false);
            clientId = (String) reply("h").get("clientId");
            send("[{\"id\":\"s\",\"channel\":\"/meta/subscribe\",\"clientId\":\"" + clientId + "\",\"subscription\":\"" + channel + "\"}]", false);
            assertEquals(true, reply("s").get("successful"));
            send("[{\"id\":\"c\",\"channel\":\"/meta/connect\",\"clientId\":\"" + clientId + "\",\"connectionType\":\"websocket\"}]", false);
            assertEquals(true, reply("c").get("successful"));
            send("[{\"id\":\"c2\",\"channel\":\"/meta/connect\",\"clientId\":\"" + clientId + "\",\"connectionType\":\"websocket\"}]", false);
            return this;
        }

        private List<Map<String, Object>> messages(RawWebSocket.Frame frame) throws DataFormatException {
            return RawClient.parseMessages(frame.rsv1() ? inflate(frame.payload()) : frame.payload());
        }

        Map<String, Object> reply(String id) throws Exception {
            while (true) {
                for (Map<String, Object> message : messages(socket.read())) {
                    if (id.equals(message.get("id")) && message.containsKey("successful")) {
                        return message;
                    }
                }
            }
        }

        /** The next frame that carries a message of {@code channel}. */
        RawWebSocket.Frame nextDelivery(String channel) throws Exception {
            while (true) {
                RawWebSocket.Frame frame = socket.read();
                for (Map<String, Object> message : messages(frame)) {
                    if (channel.equals(message.get("channel")) && message.containsKey("data")) {
                        return frame;
                    }
                }
            }
        }
    }

    private static Object data(byte[] json) {
        return RawClient.parseMessages(json).get(0).get("data");
    }

    /** A message compressed as a permessage-deflate sender does: sync flush, its last four bytes left out. */
    static byte[] deflate(byte[] message) {
        Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
        deflater.setInput(message);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] chunk = new byte[8192];
        int n;
        do {
            n = deflater.deflate(chunk, 0, chunk.length, Deflater.SYNC_FLUSH);
            out.write(chunk, 0, n);
        } while (n == chunk.length);
        deflater.end();
        byte[] bytes = out.toByteArray();
        return java.util.Arrays.copyOf(bytes, bytes.length - 4);
    }

    static byte[] inflate(byte[] payload) throws DataFormatException {
        Inflater inflater = new Inflater(true);
        byte[] input = java.util.Arrays.copyOf(payload, payload.length + 4);
        input[payload.length + 2] = (byte) 0xFF;
        input[payload.length + 3] = (byte) 0xFF;
        inflater.setInput(input);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] chunk = new byte[8192];
        int n;
        while ((n = inflater.inflate(chunk)) > 0) {
            out.write(chunk, 0, n);
        }
        inflater.end();
        return out.toByteArray();
    }
}
