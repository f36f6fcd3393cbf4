package io.bayeux.oort;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A node posing as CometD 8's Oort, in test code: its server side is a scripted long-polling
 * Bayeux endpoint (it refuses the WebSocket upgrade, as a node behind a plain proxy would) that
 * records every request; its client side is a raw WebSocket that writes the frames it is told,
 * byte for byte, and records every message it receives.
 */
final class FakeCometDNode implements AutoCloseable {
    static final ObjectMapper JSON = new ObjectMapper();

    final String id = UUID.randomUUID().toString();
    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    /** Every request body the node's server received, as messages. */
    final BlockingQueue<List<Map<String, Object>>> requests = new LinkedBlockingQueue<>();
    /** Messages to push on the next held /meta/connect. */
    final BlockingQueue<Map<String, Object>> pushes = new LinkedBlockingQueue<>();
    /** Every message received over the WebSocket. */
    final BlockingQueue<Map<String, Object>> received = new LinkedBlockingQueue<>();
    private WebSocket webSocket;
    private volatile String clientId;
    private volatile boolean connectLoop;
    /** The session its server gives the next handshake; a new one after each {@link #forget}. */
    private volatile String sessionId = "fake-session";
    /** Sessions its server forgot: their connects are held until {@link #release}, then, as the rest, answered 402. */
    private final java.util.Set<String> forgotten = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final java.util.concurrent.CountDownLatch released = new java.util.concurrent.CountDownLatch(1);
    private int sessions = 1;
    private int nextId = 1;
    private final Object sendLock = new Object();

    FakeCometDNode() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(executor);
        server.createContext("/cometd", this::handle);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/cometd";
    }

    // --- the server side

    @SuppressWarnings("unchecked")
    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"POST".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(400, -1);
                return;
            }
            List<Map<String, Object>> messages = JSON.readValue(exchange.getRequestBody().readAllBytes(), List.class);
            requests.add(messages);
            List<Object> replies = new ArrayList<>();
            for (Map<String, Object> message : messages) {
                String channel = (String) message.get("channel");
                Map<String, Object> reply = new LinkedHashMap<>();
                reply.put("id", message.get("id"));
                reply.put("channel", channel);
                if (message.get("clientId") instanceof String id && forgotten.contains(id)) {
                    if ("/meta/connect".equals(channel)) {
                        // Bounded: the test releases it, or the run fails on its own wait first.
                        released.await(OortTesting.WAIT.toMillis(), TimeUnit.MILLISECONDS);
                    }
                    reply.put("successful", false);
                    reply.put("error", "402::session_unknown");
                    reply.put("advice", Map.of("reconnect", "handshake", "interval", 0));
                    replies.add(reply);
                    continue;
                }
                switch (channel) {
                    case "/meta/handshake" -> {
                        reply.put("successful", true);
                        reply.put("clientId", sessionId);
                        reply.put("version", "1.0");
                        reply.put("supportedConnectionTypes", List.of("long-polling"));
                        reply.put("advice", Map.of("reconnect", "retry", "interval", 0, "timeout", 1000));
                        reply.put("ext", Map.of(Oort.EXT_OORT_FIELD, Map.of(Oort.EXT_OORT_URL_FIELD, url(), Oort.EXT_OORT_ID_FIELD, id)));
                    }
                    case "/meta/connect" -> {
                        Object advice = message.get("advice");
                        boolean first = advice instanceof Map<?, ?> a && Integer.valueOf(0).equals(a.get("timeout"));
                        if (!first) {
                            Map<String, Object> push = pushes.poll(1000, TimeUnit.MILLISECONDS);
                            while (push != null) {
                                replies.add(push);
                                push = pushes.poll();
                            }
                        }
                        reply.put("successful", true);
                        reply.put("clientId", message.getOrDefault("clientId", sessionId));
                        reply.put("advice", Map.of("reconnect", "retry", "interval", 0, "timeout", 1000));
                    }
                    case "/meta/subscribe", "/meta/unsubscribe" -> {
                        reply.put("successful", true);
                        reply.put("clientId", message.getOrDefault("clientId", sessionId));
                        reply.put("subscription", message.get("subscription"));
                    }
                    default -> reply.put("successful", true);
                }
                replies.add(reply);
            }
            byte[] body = JSON.writeValueAsBytes(replies);
            exchange.getResponseHeaders().set("Content-Type", "application/json;charset=UTF-8");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Its server forgets the session it gave (as a node whose session expired does): that
     * session's connects are held until {@link #release}, everything on it is answered
     * {@code 402::session_unknown}, and the next handshake gets a new session.
     */
    synchronized void forget() {
        forgotten.add(sessionId);
        sessionId = "fake-session-" + ++sessions;
    }

    /** Answers the held connects of forgotten sessions (with 402), and from now on at once. */
    void release() {
        released.countDown();
    }

    // --- the client side

    /** Opens the WebSocket to {@code httpURL} (the node to join), aborting the one open before. */
    void open(String httpURL) throws Exception {
        if (webSocket != null) {
            // A new link: the old one goes, as a node's old connection does when it handshakes anew.
            webSocket.abort();
        }
        URI uri = URI.create(httpURL.replaceFirst("^http", "ws"));
        webSocket = HttpClient.newHttpClient().newWebSocketBuilder().buildAsync(uri, new WebSocket.Listener() {
            private final StringBuilder text = new StringBuilder();

            @Override
            @SuppressWarnings("unchecked")
            public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
                text.append(data);
                if (last) {
                    try {
                        List<Map<String, Object>> messages = JSON.readValue(text.toString(), List.class);
                        for (Map<String, Object> message : messages) {
                            received.add(message);
                            if ("/meta/connect".equals(message.get("channel")) && Boolean.TRUE.equals(message.get("successful")) && connectLoop) {
                                sendRaw("[{\"id\":\"" + newId() + "\",\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"clientId\":\"" + clientId + "\"}]");
                            }
                        }
                    } catch (IOException x) {
                        throw new IllegalStateException(x);
                    }
                    text.setLength(0);
                }
                ws.request(1);
                return null;
            }
        }).get(30, TimeUnit.SECONDS);
    }

    synchronized String newId() {
        return String.valueOf(nextId++);
    }

    /**
     * Sends one frame. Serialized: the test thread and the connect loop (on the WebSocket's
     * listener thread) both send, and the JDK WebSocket fails a send started while another is
     * pending (which, thrown in the listener, aborted the socket: "Output closed").
     */
    void sendRaw(String json) {
        synchronized (sendLock) {
            // Bounded: a send that never completes fails the test instead of hanging the run.
            webSocket.sendText(json, true).toCompletableFuture().orTimeout(30, TimeUnit.SECONDS).join();
        }
    }

    /** Starts the connect loop once handshaken: each connect reply sends the next connect. */
    void connect(String clientId) {
        this.clientId = clientId;
        this.connectLoop = true;
        sendRaw("[{\"id\":\"" + newId() + "\",\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"advice\":{\"timeout\":0},\"clientId\":\"" + clientId + "\"}]");
    }

    /** The next message received over the WebSocket on {@code channel}. */
    Map<String, Object> nextOn(String channel) throws InterruptedException {
        long deadline = System.nanoTime() + OortTesting.WAIT.toNanos();
        while (true) {
            Map<String, Object> message = received.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (message == null) {
                throw new AssertionError("Nothing on " + channel + " within " + OortTesting.WAIT);
            }
            if (channel.equals(message.get("channel"))) {
                return message;
            }
        }
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        connectLoop = false;
        released.countDown();
        if (webSocket != null) {
            webSocket.abort();
        }
        server.stop(0);
        executor.shutdownNow();
    }
}
