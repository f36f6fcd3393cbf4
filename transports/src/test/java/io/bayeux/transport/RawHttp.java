package io.bayeux.transport;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, for the byte-level control the JDK client does not give:
 * half requests, raw paths, invalid bytes. Every read is bounded by the socket timeout.
 */
final class RawHttp implements AutoCloseable {
    /** How long any single read may block. */
    static final int READ_TIMEOUT_MILLIS = 5_000;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private RawHttp(Socket socket) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
    }

    static RawHttp connect(int port) throws IOException {
        return connect(port, 0);
    }

    /**
     * Connects with a receive buffer of {@code receiveBuffer} bytes, set before connecting so
     * that the window the server sees is small from the start; 0 keeps the system's default.
     */
    static RawHttp connect(int port, int receiveBuffer) throws IOException {
        Socket socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.connect(new InetSocketAddress("127.0.0.1", port), READ_TIMEOUT_MILLIS);
        socket.setSoTimeout(READ_TIMEOUT_MILLIS);
        return new RawHttp(socket);
    }

    /** Sends one request on a new connection and reads its response. */
    static Response exchange(int port, byte[] request) throws IOException {
        try (RawHttp http = connect(port)) {
            http.write(request);
            return http.readResponse();
        }
    }

    /** A request with a body: the request line and headers (without Content-Length), then the body bytes. */
    static byte[] request(String method, String target, List<String> headers, byte[] body) {
        StringBuilder head = new StringBuilder(method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        for (String header : headers) {
            head.append(header).append("\r\n");
        }
        if (body != null) {
            head.append("Content-Length: ").append(body.length).append("\r\n");
        }
        head.append("\r\n");
        byte[] start = head.toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = new byte[start.length + (body == null ? 0 : body.length)];
        System.arraycopy(start, 0, all, 0, start.length);
        if (body != null) {
            System.arraycopy(body, 0, all, start.length, body.length);
        }
        return all;
    }

    static byte[] post(String target, String contentType, byte[] body) {
        return request("POST", target, List.of("Content-Type: " + contentType), body);
    }

    void write(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    Socket socket() {
        return socket;
    }

    InputStream input() {
        return in;
    }

    OutputStream output() {
        return out;
    }

    /** Reads one response: status line, headers and a Content-Length, chunked or until-close body. */
    Response readResponse() throws IOException {
        String statusLine = readLine(in);
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
            throw new IOException("Not an HTTP status line: " + statusLine);
        }
        int status = Integer.parseInt(parts[1]);
        Map<String, List<String>> headers = readHeaders(in);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        List<String> length = headers.get("content-length");
        List<String> encoding = headers.get("transfer-encoding");
        if (status == 101 || status == 304 || status == 204) {
            // No body.
        } else if (length != null) {
            body.write(in.readNBytes(Integer.parseInt(length.get(0).trim())));
        } else if (encoding != null && encoding.get(0).toLowerCase(Locale.ROOT).contains("chunked")) {
            while (true) {
                int size = Integer.parseInt(readLine(in).split(";")[0].trim(), 16);
                if (size == 0) {
                    readHeaders(in);
                    break;
                }
                body.write(in.readNBytes(size));
                readLine(in);
            }
        } else {
            in.transferTo(body);
        }
        return new Response(status, headers, body.toByteArray());
    }

    static Map<String, List<String>> readHeaders(InputStream in) throws IOException {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
            int colon = line.indexOf(':');
            headers.computeIfAbsent(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                    .add(line.substring(colon + 1).trim());
        }
        return headers;
    }

    static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("Connection closed in the middle of a line: " + line.toString(StandardCharsets.ISO_8859_1));
            }
            if (b == '\n') {
                byte[] bytes = line.toByteArray();
                int end = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, end, StandardCharsets.ISO_8859_1);
            }
            line.write(b);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /** A response; header names are lower case. */
    record Response(int status, Map<String, List<String>> headers, byte[] body) {
        String header(String name) {
            List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
            return values == null ? null : values.get(0);
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }
}
