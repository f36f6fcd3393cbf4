package io.bayeux.transport;

import io.bayeux.common.json.JacksonJsonCodec;

import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A raw Bayeux client for tests, on the JDK's HTTP client: long-polling by POSTing JSON
 * arrays, or WebSocket text frames. It knows nothing of this project's client code.
 */
public final class RawClient implements AutoCloseable {
    private static final JacksonJsonCodec JSON = new JacksonJsonCodec();
    private final URI uri;
    private final boolean websocket;
    private final HttpClient http;
    private final AtomicInteger ids = new AtomicInteger();
    /** Every message received over WebSocket, replies and deliveries alike. */
    public final BlockingQueue<Map<String, Object>> received = new LinkedBlockingQueue<>();
    private final CompletableFuture<Integer> closed = new CompletableFuture<>();
    private WebSocket socket;
    private String clientId;

    public RawClient(URI uri, boolean websocket) {
        this.uri = uri;
        this.websocket = websocket;
        this.http = HttpClient.newBuilder().cookieHandler(new CookieManager()).connectTimeout(Duration.ofSeconds(5)).build();
    }

    public String clientId() {
        return clientId;
    }

    public CompletableFuture<Integer> closed() {
        return closed;
    }

    public RawClient open() throws Exception {
        if (websocket) {
            URI ws = URI.create(uri.toString().replaceFirst("^http", "ws"));
            socket = http.newWebSocketBuilder().buildAsync(ws, new Listener()).get(5, TimeUnit.SECONDS);
        }
        return this;
    }

    /** Sends raw text (a frame, or a POST body); over HTTP returns the parsed response array. */
    @SuppressWarnings("unchecked")
    public List<Map<String, Object>> sendRaw(String json) throws Exception {
        if (websocket) {
            socket.sendText(json, true).get(5, TimeUnit.SECONDS);
            return List.of();
        }
        HttpResponse<String> response = post(json, "application/json;charset=UTF-8");
        if (response.statusCode() != 200) {
            throw new AssertionError("HTTP " + response.statusCode() + ": " + response.body());
        }
        return (List<Map<String, Object>>) JSON.parse(response.body().getBytes(StandardCharsets.UTF_8));
    }

    public HttpResponse<String> post(String body, String contentType) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Sends messages and returns what came back for them: over HTTP the response; over
     * WebSocket the frames received until the reply to the last message.
     */
    @SafeVarargs
    public final List<Map<String, Object>> send(Map<String, Object>... messages) throws Exception {
        List<Map<String, Object>> batch = new ArrayList<>();
        String lastId = null;
        String lastChannel = null;
        for (Map<String, Object> message : messages) {
            Map<String, Object> copy = new LinkedHashMap<>(message);
            lastId = String.valueOf(ids.incrementAndGet());
            copy.putIfAbsent("id", lastId);
            lastId = String.valueOf(copy.get("id"));
            lastChannel = (String) copy.get("channel");
            if (clientId != null && !"/meta/handshake".equals(copy.get("channel"))) {
                copy.putIfAbsent("clientId", clientId);
            }
            batch.add(copy);
        }
        String json = new String(JSON.write(batch), StandardCharsets.UTF_8);
        if (!websocket) {
            return sendRaw(json);
        }
        sendRaw(json);
        List<Map<String, Object>> result = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            Map<String, Object> message = received.poll(100, TimeUnit.MILLISECONDS);
            if (message != null) {
                result.add(message);
                if (lastId.equals(String.valueOf(message.get("id"))) && lastChannel.equals(message.get("channel")) && message.containsKey("successful")) {
                    return result;
                }
            }
        }
        throw new AssertionError("No reply to " + batch + " within 30 s; got " + result);
    }

    public Map<String, Object> handshake() throws Exception {
        Map<String, Object> reply = reply(send(Map.of("channel", "/meta/handshake", "version", "1.0",
                "supportedConnectionTypes", List.of("websocket", "long-polling"))), "/meta/handshake");
        clientId = (String) reply.get("clientId");
        return reply;
    }

    public List<Map<String, Object>> connect() throws Exception {
        return send(Map.of("channel", "/meta/connect", "connectionType", websocket ? "websocket" : "long-polling"));
    }

    /** Waits at most 10 s for a WebSocket message on {@code channel} that is a delivery. */
    public Map<String, Object> nextDelivery(String channel) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            Map<String, Object> message = received.poll(100, TimeUnit.MILLISECONDS);
            if (message != null && channel.equals(message.get("channel")) && message.containsKey("data")) {
                return message;
            }
        }
        throw new AssertionError("No delivery on " + channel + " within 10 s");
    }

    /** The messages of a frame's JSON array; fails naming the text when it is not one. */
    @SuppressWarnings("unchecked")
    public static List<Map<String, Object>> parseMessages(byte[] json) {
        try {
            return (List<Map<String, Object>>) JSON.parse(json);
        } catch (Exception x) {
            throw new AssertionError(new String(json, StandardCharsets.UTF_8), x);
        }
    }

    public static Map<String, Object> reply(List<Map<String, Object>> messages, String channel) {
        for (Map<String, Object> message : messages) {
            if (channel.equals(message.get("channel")) && message.containsKey("successful")) {
                return message;
            }
        }
        throw new AssertionError("No reply on " + channel + " in " + messages);
    }

    public WebSocket socket() {
        return socket;
    }

    @Override
    public void close() {
        if (socket != null) {
            socket.abort();
        }
        http.close();
    }

    private final class Listener implements WebSocket.Listener {
        private final StringBuilder text = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                try {
                    received.addAll(parseMessages(text.toString().getBytes(StandardCharsets.UTF_8)));
                } catch (AssertionError invalid) {
                    // Reading stops here: a waiting test says so.
                    closed.completeExceptionally(invalid);
                    throw invalid;
                } finally {
                    text.setLength(0);
                }
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            closed.complete(statusCode);
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            closed.completeExceptionally(error);
        }
    }
}
