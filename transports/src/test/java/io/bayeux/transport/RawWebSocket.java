package io.bayeux.transport;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * A WebSocket client over a plain socket that writes whatever frames it is told, valid or not
 * (binary, invalid UTF-8, oversized), and reads the server's frames. Reads are bounded by the
 * socket timeout.
 */
final class RawWebSocket implements AutoCloseable {
    static final int TEXT = 0x1;
    static final int BINARY = 0x2;
    static final int CONTINUATION = 0x0;
    static final int CLOSE = 0x8;
    static final int PING = 0x9;
    static final int PONG = 0xA;

    private final RawHttp http;
    private final Map<String, List<String>> upgradeHeaders;
    private final SecureRandom random = new SecureRandom();

    private RawWebSocket(RawHttp http, Map<String, List<String>> upgradeHeaders) {
        this.http = http;
        this.upgradeHeaders = upgradeHeaders;
    }

    /** The headers of the server's 101 answer, names in lower case. */
    Map<String, List<String>> upgradeHeaders() {
        return upgradeHeaders;
    }

    /** Sends an upgrade request with the extra headers and returns the server's answer to it. */
    static RawHttp.Response upgradeResponse(int port, String path, List<String> extraHeaders) throws IOException {
        try (RawHttp http = RawHttp.connect(port)) {
            http.write(upgradeRequest(path, extraHeaders));
            return http.readResponse();
        }
    }

    /** Opens a WebSocket connection; fails unless the server answers 101. */
    static RawWebSocket open(int port, String path) throws IOException {
        return open(port, path, List.of());
    }

    /** Opens a WebSocket connection with extra upgrade headers; fails unless the server answers 101. */
    static RawWebSocket open(int port, String path, List<String> extraHeaders) throws IOException {
        return open(port, path, extraHeaders, 0);
    }

    /**
     * Opens a WebSocket connection with extra upgrade headers on a socket with a receive buffer
     * of {@code receiveBuffer} bytes (0: the system's default); fails unless the server answers
     * 101 with the {@code Sec-WebSocket-Accept} that the key sent calls for.
     */
    static RawWebSocket open(int port, String path, List<String> extraHeaders, int receiveBuffer) throws IOException {
        return upgrade(RawHttp.connect(port, receiveBuffer), path, extraHeaders);
    }

    /**
     * Upgrades {@code http}, a connection opened earlier, to a WebSocket with extra upgrade
     * headers; fails (and closes it) unless the server answers 101 with the right
     * {@code Sec-WebSocket-Accept}. How a test sends the upgrade of a connection later than the
     * server accepted it.
     */
    static RawWebSocket upgrade(RawHttp http, String path, List<String> extraHeaders) throws IOException {
        String key = newKey();
        http.write(upgradeRequest(path, key, extraHeaders));
        String statusLine = RawHttp.readLine(http.input());
        Map<String, List<String>> headers = RawHttp.readHeaders(http.input());
        if (!statusLine.contains(" 101 ")) {
            http.close();
            throw new IOException("Upgrade refused: " + statusLine);
        }
        String accept = accept(key);
        if (!headers.getOrDefault("sec-websocket-accept", List.of()).contains(accept)) {
            http.close();
            throw new IOException("Upgraded without Sec-WebSocket-Accept: " + accept + ": " + headers);
        }
        return new RawWebSocket(http, headers);
    }

    private static String newKey() {
        byte[] key = new byte[16];
        new SecureRandom().nextBytes(key);
        return Base64.getEncoder().encodeToString(key);
    }

    /** The {@code Sec-WebSocket-Accept} a server answers to {@code key} (RFC 6455, 4.2.2). */
    private static String accept(String key) {
        try {
            return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-1")
                    .digest((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").getBytes(StandardCharsets.US_ASCII)));
        } catch (NoSuchAlgorithmException x) {
            throw new IllegalStateException(x);
        }
    }

    private static byte[] upgradeRequest(String path, List<String> extraHeaders) {
        return upgradeRequest(path, newKey(), extraHeaders);
    }

    private static byte[] upgradeRequest(String path, String key, List<String> extraHeaders) {
        List<String> headers = new ArrayList<>(List.of("Connection: Upgrade", "Upgrade: websocket",
                "Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: " + key));
        headers.addAll(extraHeaders);
        return RawHttp.request("GET", path, headers, null);
    }

    /** Writes one final, masked frame. */
    void send(int opcode, byte[] payload) throws IOException {
        send(opcode, payload, true);
    }

    /** Writes one masked frame, the last of its message ({@code fin}) or not. */
    void send(int opcode, byte[] payload, boolean fin) throws IOException {
        send(opcode, payload, fin, false);
    }

    /** Writes one masked frame, the last of its message ({@code fin}) or not, with RSV1 set if {@code rsv1} (permessage-deflate). */
    void send(int opcode, byte[] payload, boolean fin, boolean rsv1) throws IOException {
        ByteArrayOutputStream frame = new ByteArrayOutputStream(payload.length + 14);
        frame.write((fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode);
        if (payload.length < 126) {
            frame.write(0x80 | payload.length);
        } else if (payload.length < 65536) {
            frame.write(0x80 | 126);
            frame.write(payload.length >>> 8);
            frame.write(payload.length & 0xFF);
        } else {
            frame.write(0x80 | 127);
            for (int shift = 56; shift >= 0; shift -= 8) {
                frame.write((int) ((long) payload.length >>> shift) & 0xFF);
            }
        }
        byte[] mask = new byte[4];
        random.nextBytes(mask);
        frame.write(mask, 0, 4);
        for (int i = 0; i < payload.length; i++) {
            frame.write(payload[i] ^ mask[i % 4]);
        }
        http.write(frame.toByteArray());
    }

    java.net.Socket socket() {
        return http.socket();
    }

    void sendText(String text) throws IOException {
        send(TEXT, text.getBytes(StandardCharsets.UTF_8));
    }

    /** One frame from the server; {@code fin} if it is the last of its message, {@code rsv1} if its RSV1 bit is set. */
    record Frame(int opcode, boolean fin, boolean rsv1, byte[] payload) {
        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }

        /** The close code of a close frame, or 1005 when it has none. */
        int closeCode() {
            return payload.length >= 2 ? ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF) : 1005;
        }
    }

    Frame read() throws IOException {
        InputStream in = http.input();
        int first = in.read();
        if (first < 0) {
            throw new EOFException("Connection closed");
        }
        int second = in.read();
        if (second < 0) {
            throw new EOFException("Connection closed in a frame header");
        }
        if ((second & 0x80) != 0) {
            throw new IOException("The server masked a frame");
        }
        long length = second & 0x7F;
        if (length == 126) {
            length = ((in.read() & 0xFF) << 8) | (in.read() & 0xFF);
        } else if (length == 127) {
            length = 0;
            for (int i = 0; i < 8; i++) {
                length = (length << 8) | (in.read() & 0xFF);
            }
        }
        byte[] payload = in.readNBytes((int) length);
        return new Frame(first & 0x0F, (first & 0x80) != 0, (first & 0x40) != 0, payload);
    }

    /**
     * Reads frames until the server's close frame and returns its code; fails if the
     * connection ends, or nothing comes within the socket timeout, without one.
     */
    int awaitCloseCode() throws IOException {
        while (true) {
            Frame frame;
            try {
                frame = read();
            } catch (SocketTimeoutException x) {
                throw new AssertionError("No close frame within " + RawHttp.READ_TIMEOUT_MILLIS + " ms", x);
            }
            if (frame.opcode() == CLOSE) {
                return frame.closeCode();
            }
        }
    }

    @Override
    public void close() throws IOException {
        http.close();
    }
}
