package io.bayeux.server.internal;

import io.bayeux.api.Promise;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.spi.Connection;
import io.bayeux.server.spi.Endpoint;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Bayeux client over an in-memory transport that goes through the whole transport SPI:
 * requests are JSON bytes decoded by the server, replies and pushes are encoded by the server
 * and parsed back, as a network transport would. {@code push} makes it behave like WebSocket,
 * otherwise like long-polling.
 */
public final class TestClient {
    /** How long a test waits (joins) at most for the replies to a batch: generous, it only turns a hang into a failure. */
    static final long REPLY_TIMEOUT_SECONDS = 30;
    private final BayeuxServerImpl server;
    private final boolean push;
    private final Connection connection;
    private final AtomicInteger ids = new AtomicInteger();
    /** Every message pushed to this client, outside replies to its batches. */
    public final BlockingQueue<Map<String, Object>> pushed = new LinkedBlockingQueue<>();
    /** How many pushes ({@link Endpoint#write} calls) this client received: one per batch of messages. */
    public final AtomicInteger writes = new AtomicInteger();
    /** The JSON length of each push, in order. */
    public final List<Integer> writeBytes = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** How many times the core flushed this client's endpoint (event loop endpoints only). */
    public final AtomicInteger flushes = new AtomicInteger();
    /** Run at each flush of this client's endpoint, after it is counted. */
    public volatile Runnable onFlush = () -> { };
    /** What the endpoint answers to {@code isWritable()}. */
    public volatile boolean writable = true;
    /** What the endpoint answers to {@code isStalled()}. */
    public volatile boolean stalled;
    private final java.util.concurrent.Executor eventLoop;
    /** The browser cookie every request carries ({@link Endpoint#browserId()}), or null. */
    private final String browserId;
    private volatile String clientId;

    public TestClient(BayeuxServerImpl server, boolean push) {
        this(server, push, null);
    }

    /** A pushing client whose endpoint has {@code eventLoop} (null: none), as a WebSocket's has. */
    public TestClient(BayeuxServerImpl server, boolean push, java.util.concurrent.Executor eventLoop) {
        this(server, push, eventLoop, null);
    }

    /**
     * A long-polling client in the browser {@code browserId} (its cookie): its session belongs to
     * that browser, and its held connects count towards {@code maxSessionsPerBrowser}.
     */
    public TestClient(BayeuxServerImpl server, String browserId) {
        this(server, false, null, java.util.Objects.requireNonNull(browserId, "browserId"));
    }

    private TestClient(BayeuxServerImpl server, boolean push, java.util.concurrent.Executor eventLoop, String browserId) {
        this.server = server;
        this.push = push;
        this.eventLoop = eventLoop;
        this.browserId = browserId;
        this.connection = server.newConnection(new TestEndpoint());
    }

    public String transportName() {
        return push ? "websocket" : "long-polling";
    }

    public Connection connection() {
        return connection;
    }

    public String clientId() {
        return clientId;
    }

    public void clientId(String clientId) {
        this.clientId = clientId;
    }

    /** Sends raw JSON; the future completes with the parsed messages written back for this batch. */
    public CompletableFuture<List<Map<String, Object>>> sendJson(String json) {
        CompletableFuture<List<Map<String, Object>>> result = new CompletableFuture<>();
        List<ServerMessage.Mutable> batch;
        try {
            batch = server.decode(json.getBytes(StandardCharsets.UTF_8));
        } catch (Exception x) {
            result.completeExceptionally(x);
            return result;
        }
        connection.handle(batch, replies -> result.complete(roundTrip(replies)));
        // Tests join() these futures: a reply that never comes fails the test instead of hanging the run.
        return result.orTimeout(REPLY_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    /** Sends messages (ids are added when missing, clientId when known). */
    @SafeVarargs
    public final CompletableFuture<List<Map<String, Object>>> send(Map<String, Object>... messages) {
        List<Map<String, Object>> batch = new ArrayList<>();
        for (Map<String, Object> message : messages) {
            Map<String, Object> copy = new LinkedHashMap<>(message);
            copy.putIfAbsent("id", String.valueOf(ids.incrementAndGet()));
            if (clientId != null && !"/meta/handshake".equals(copy.get("channel"))) {
                copy.putIfAbsent("clientId", clientId);
            }
            batch.add(copy);
        }
        try {
            return sendJson(new String(server.jsonCodec().write(batch), StandardCharsets.UTF_8));
        } catch (Exception x) {
            return CompletableFuture.failedFuture(x);
        }
    }

    /** Sends and waits at most 5 s for the messages written back. */
    @SafeVarargs
    public final List<Map<String, Object>> call(Map<String, Object>... messages) {
        try {
            return send(messages).get(5, TimeUnit.SECONDS);
        } catch (Exception x) {
            throw new AssertionError("No reply within 5 s to " + List.of(messages), x);
        }
    }

    /** Handshakes (and, for a ready session, sends the first connect); returns the handshake reply. */
    public Map<String, Object> handshake(Map<String, Object> extra) {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("channel", "/meta/handshake");
        message.put("version", "1.0");
        message.put("supportedConnectionTypes", List.of("websocket", "long-polling"));
        if (extra != null) {
            message.putAll(extra);
        }
        Map<String, Object> reply = reply(call(message), "/meta/handshake");
        if (Boolean.TRUE.equals(reply.get("successful"))) {
            clientId = (String) reply.get("clientId");
        }
        return reply;
    }

    /** Handshakes and sends the first connect, which the server answers at once. */
    public TestClient connected() {
        Map<String, Object> reply = handshake(null);
        if (!Boolean.TRUE.equals(reply.get("successful"))) {
            throw new AssertionError("Handshake failed: " + reply);
        }
        Map<String, Object> connect = reply(call(connectMessage()), "/meta/connect");
        if (!Boolean.TRUE.equals(connect.get("successful"))) {
            throw new AssertionError("First connect failed: " + connect);
        }
        return this;
    }

    public Map<String, Object> connectMessage() {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("channel", "/meta/connect");
        message.put("connectionType", transportName());
        return message;
    }

    /** Starts a connect; the future completes when the server answers it. */
    public CompletableFuture<List<Map<String, Object>>> connect() {
        return send(connectMessage());
    }

    /**
     * Makes this session, subscribed to {@code channel}, one that receives often enough for its
     * connect replies to gather ({@link ConnectHold#gatherWait}): fifteen connect replies, each
     * with four messages of {@code channel}, at most the gather time apart; the last goes out at
     * {@code scheduler}'s time when this returns.
     */
    public void receiveOften(ManualScheduler scheduler, String channel) {
        for (int i = 0; i < 15; i++) {
            CompletableFuture<List<Map<String, Object>>> held = connect();
            for (int m = 0; m < 4; m++) {
                server.getChannel(channel).publish(null, "often");
            }
            for (int step = 0; !held.isDone() && step < 100; step++) {
                scheduler.advance(10);
            }
            if (!held.isDone()) {
                throw new AssertionError("a connect reply with messages waited more than a second");
            }
        }
    }

    public Map<String, Object> subscribe(Object subscription) {
        return reply(call(Map.of("channel", "/meta/subscribe", "subscription", subscription)), "/meta/subscribe");
    }

    public Map<String, Object> unsubscribe(Object subscription) {
        return reply(call(Map.of("channel", "/meta/unsubscribe", "subscription", subscription)), "/meta/unsubscribe");
    }

    /** Publishes and returns the publish reply. */
    public Map<String, Object> publish(String channel, Object data) {
        return reply(call(Map.of("channel", channel, "data", data)), channel);
    }

    public Map<String, Object> disconnect() {
        return reply(call(Map.of("channel", "/meta/disconnect")), "/meta/disconnect");
    }

    /** The reply on {@code channel} among {@code messages}: the one with {@code successful}. */
    public static Map<String, Object> reply(List<Map<String, Object>> messages, String channel) {
        for (Map<String, Object> message : messages) {
            if (channel.equals(message.get("channel")) && message.containsKey("successful")) {
                return message;
            }
        }
        throw new AssertionError("No reply on " + channel + " in " + messages);
    }

    /** The messages among {@code messages} that are deliveries (have data, no successful) on {@code channel}. */
    public static List<Map<String, Object>> deliveries(List<Map<String, Object>> messages, String channel) {
        List<Map<String, Object>> result = new ArrayList<>();
        for (Map<String, Object> message : messages) {
            if (channel.equals(message.get("channel")) && !message.containsKey("successful")) {
                result.add(message);
            }
        }
        return result;
    }

    /** Waits at most 5 s for the next pushed message. */
    public Map<String, Object> nextPushed() {
        try {
            Map<String, Object> message = pushed.poll(5, TimeUnit.SECONDS);
            if (message == null) {
                throw new AssertionError("Nothing pushed within 5 s");
            }
            return message;
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new AssertionError(x);
        }
    }

    private int encodedLength(List<ServerMessage> messages) {
        try {
            return server.encode(messages).length;
        } catch (Exception x) {
            throw new AssertionError("Server wrote invalid JSON", x);
        }
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> roundTrip(List<ServerMessage> messages) {
        try {
            return (List<Map<String, Object>>) server.jsonCodec().parse(server.encode(messages));
        } catch (Exception x) {
            throw new AssertionError("Server wrote invalid JSON", x);
        }
    }

    private final class TestEndpoint implements Endpoint {
        @Override
        public String transportName() {
            return TestClient.this.transportName();
        }

        @Override
        public boolean canPush() {
            return push;
        }

        @Override
        public void write(List<ServerMessage> messages, Promise<Void> written) {
            List<Map<String, Object>> parsed = roundTrip(messages);
            writeBytes.add(encodedLength(messages));
            writes.incrementAndGet();
            pushed.addAll(parsed);
            written.succeed(null);
        }

        @Override
        public java.util.concurrent.Executor eventLoop() {
            return eventLoop;
        }

        @Override
        public boolean isWritable() {
            return writable;
        }

        @Override
        public boolean isStalled() {
            return stalled;
        }

        @Override
        public void flush() {
            flushes.incrementAndGet();
            onFlush.run();
        }

        @Override
        public String userAgent() {
            return "TestClient";
        }

        @Override
        public String browserId() {
            return browserId;
        }
    }
}
