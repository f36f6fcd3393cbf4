package io.bayeux.load;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A WebSocket client that joins its rooms like the others, then never reads its socket again
 * ({@code --stalled-clients}): the server sees a full TCP socket, as with a frozen browser tab
 * or a process that stopped, not a client that drops frames.
 *
 * <p>It speaks WebSocket and Bayeux by hand on a plain socket with a 4 KiB receive buffer:
 * upgrade, {@code /meta/handshake}, a first {@code /meta/connect} (answered at once:
 * {@code advice.timeout} 0), one {@code /meta/subscribe} per room, then the {@code /meta/connect}
 * the server holds. Nothing of it is read from then on, and it sends nothing more. Every read
 * while setting up has a time limit. {@link #close()} closes the socket.
 */
final class StalledClient implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int RECEIVE_BUFFER = 4096;

    private final Socket socket = new Socket();
    private final InputStream in;
    private final OutputStream out;
    private String clientId;
    private int nextId;

    private StalledClient(URI url, Duration timeout) throws IOException {
        int port = url.getPort() != -1 ? url.getPort() : 80;
        if (!"http".equals(url.getScheme()) && !"ws".equals(url.getScheme())) {
            throw new IllegalArgumentException("--stalled-clients needs a plain http:// or ws:// URL: " + url);
        }
        socket.setReceiveBufferSize(RECEIVE_BUFFER);
        socket.connect(new InetSocketAddress(url.getHost(), port), (int) timeout.toMillis());
        socket.setSoTimeout((int) timeout.toMillis());
        in = socket.getInputStream();
        out = socket.getOutputStream();
        upgrade(url, port);
    }

    /**
     * Connects, joins {@code rooms} and stops reading.
     *
     * @param timeout the longest wait for each answer while setting up
     */
    static StalledClient join(URI url, int[] rooms, Duration timeout) throws IOException {
        StalledClient client = new StalledClient(url, timeout);
        try {
            client.setUp(rooms);
            return client;
        } catch (IOException | RuntimeException x) {
            client.close();
            throw x;
        }
    }

    private void upgrade(URI url, int port) throws IOException {
        byte[] nonce = new byte[16];
        ThreadLocalRandom.current().nextBytes(nonce);
        String key = Base64.getEncoder().encodeToString(nonce);
        String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
        String request = "GET " + path + " HTTP/1.1\r\n"
                + "Host: " + url.getHost() + ":" + port + "\r\n"
                + "Upgrade: websocket\r\n"
                + "Connection: Upgrade\r\n"
                + "Sec-WebSocket-Key: " + key + "\r\n"
                + "Sec-WebSocket-Version: 13\r\n\r\n";
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        StringBuilder head = new StringBuilder();
        while (head.length() < 16384 && !head.toString().endsWith("\r\n\r\n")) {
            head.append((char) readByte());
        }
        String accept;
        try {
            accept = Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-1")
                    .digest((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException x) {
            throw new IllegalStateException(x);
        }
        String text = head.toString();
        if (!text.startsWith("HTTP/1.1 101") || !text.toLowerCase().contains("sec-websocket-accept: " + accept.toLowerCase())) {
            throw new IOException("WebSocket upgrade refused: " + text.lines().findFirst().orElse(text));
        }
    }

    private void setUp(int[] rooms) throws IOException {
        Map<String, Object> handshake = message("/meta/handshake");
        handshake.put("version", "1.0");
        handshake.put("supportedConnectionTypes", List.of("websocket"));
        clientId = (String) request(List.of(handshake), "/meta/handshake", 1).get(0).get("clientId");
        Map<String, Object> connect = message("/meta/connect");
        connect.put("connectionType", "websocket");
        connect.put("advice", Map.of("timeout", 0));
        request(List.of(connect), "/meta/connect", 1);
        List<Map<String, Object>> subscribes = new ArrayList<>();
        for (int room : rooms) {
            Map<String, Object> subscribe = message("/meta/subscribe");
            subscribe.put("subscription", ChatClients.roomChannel(room));
            subscribes.add(subscribe);
        }
        request(subscribes, "/meta/subscribe", rooms.length);
        Map<String, Object> held = message("/meta/connect");
        held.put("connectionType", "websocket");
        send(List.of(held));
    }

    private Map<String, Object> message(String channel) {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("channel", channel);
        message.put("id", String.valueOf(++nextId));
        if (clientId != null) {
            message.put("clientId", clientId);
        }
        return message;
    }

    /** Sends {@code messages} and reads until {@code replies} successful replies on {@code channel} came. */
    private List<Map<String, Object>> request(List<Map<String, Object>> messages, String channel, int replies) throws IOException {
        send(messages);
        List<Map<String, Object>> got = new ArrayList<>();
        // Bounded: each read waits at most the socket timeout, and the frames read are counted.
        for (int frames = 0; got.size() < replies; frames++) {
            if (frames > 1000) {
                throw new IOException("No answer on " + channel + " in 1000 frames");
            }
            for (Map<String, Object> message : readFrame()) {
                if (channel.equals(message.get("channel")) && message.containsKey("successful")) {
                    if (!Boolean.TRUE.equals(message.get("successful"))) {
                        throw new IOException("Refused: " + message);
                    }
                    got.add(message);
                }
            }
        }
        return got;
    }

    private void send(List<Map<String, Object>> messages) throws IOException {
        byte[] payload = JSON.writeValueAsBytes(messages);
        byte[] mask = new byte[4];
        ThreadLocalRandom.current().nextBytes(mask);
        ByteArrayOutputStream frame = new ByteArrayOutputStream(payload.length + 14);
        frame.write(0x81);
        int length = payload.length;
        if (length < 126) {
            frame.write(0x80 | length);
        } else if (length < 65536) {
            frame.write(0x80 | 126);
            frame.write(length >>> 8);
            frame.write(length);
        } else {
            frame.write(0x80 | 127);
            for (int shift = 56; shift >= 0; shift -= 8) {
                frame.write((int) ((long) length >>> shift));
            }
        }
        frame.write(mask);
        for (int i = 0; i < length; i++) {
            frame.write(payload[i] ^ mask[i & 3]);
        }
        out.write(frame.toByteArray());
        out.flush();
    }

    /** The messages of the next complete text message (continuations joined); control frames skipped. */
    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> readFrame() throws IOException {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        for (int frames = 0; frames < 10_000; frames++) {
            int b0 = readByte();
            int b1 = readByte();
            long length = b1 & 0x7F;
            if (length == 126) {
                length = ((long) readByte() << 8) | readByte();
            } else if (length == 127) {
                length = 0;
                for (int i = 0; i < 8; i++) {
                    length = (length << 8) | readByte();
                }
            }
            if (length > 16 * 1024 * 1024) {
                throw new IOException("Frame too large while setting up: " + length);
            }
            byte[] payload = in.readNBytes((int) length);
            if (payload.length < length) {
                throw new IOException("The server closed the connection");
            }
            int opcode = b0 & 0x0F;
            if (opcode == 0x8) {
                throw new IOException("The server closed the WebSocket");
            }
            if (opcode == 0x1 || opcode == 0x0) {
                text.write(payload);
                if ((b0 & 0x80) != 0) {
                    return JSON.readValue(text.toByteArray(), List.class);
                }
            }
        }
        throw new IOException("No complete text message in 10,000 frames");
    }

    private int readByte() throws IOException {
        int b;
        try {
            b = in.read();
        } catch (SocketTimeoutException x) {
            throw new IOException("No answer within " + socket.getSoTimeout() + " ms", x);
        }
        if (b < 0) {
            throw new IOException("The server closed the connection");
        }
        return b;
    }

    String clientId() {
        return clientId;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closing a socket nobody reads.
        }
    }
}
