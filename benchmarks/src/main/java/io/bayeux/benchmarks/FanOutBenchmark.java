package io.bayeux.benchmarks;

import io.bayeux.api.Promise;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.common.json.JsonCodec;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.server.spi.Connection;
import io.bayeux.server.spi.Endpoint;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The fan-out step: one message published to a channel with {@code sessions} subscribers, each
 * on an in-memory endpoint that can push and whose write encodes the batch (as a transport
 * does) and completes at once. What is measured is the core: routing, per-session queues,
 * flushing, and the per-subscriber encode of the shared message; no network.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class FanOutBenchmark {
    private static final String CHANNEL = "/bench/room";

    /** Subscribers of the channel; 100,000 is the broadcast of the density figures (docs/density.md). */
    @Param({"10", "100", "1000", "100000"})
    public int sessions;
    @Param({"50"})
    public int dataBytes;
    /**
     * Whether the endpoints have an event loop, as WebSocket endpoints do: the core then pushes
     * in rounds from that loop (here the publishing thread itself) and flushes once per round;
     * without one, each session's flusher writes and waits for the write's completion.
     */
    @Param({"true", "false"})
    public boolean eventLoop;

    private BayeuxServerImpl bayeux;
    private ServerChannel channel;
    private CountingEndpoint[] endpoints;
    private Map<String, Object> data;
    /** Publishes so far, the one of the set-up included. */
    private long published;

    @Setup
    public void setUp() throws Exception {
        // Delivery on the publishing thread; sessions that never expire while the benchmark runs.
        bayeux = new BayeuxServerImpl(BayeuxServerConfig.builder().executor(Runnable::run)
                .maxInterval(Duration.ofHours(1)).build()).start();
        channel = bayeux.createChannelIfAbsent(CHANNEL).getReference();
        data = Payloads.data(dataBytes);
        endpoints = new CountingEndpoint[sessions];
        for (int i = 0; i < sessions; i++) {
            endpoints[i] = new CountingEndpoint(bayeux, eventLoop);
            subscribe(bayeux.newConnection(endpoints[i]));
        }
        // Every subscriber gets the message once, in one write.
        publishToAllSubscribers();
        for (CountingEndpoint endpoint : endpoints) {
            if (endpoint.messages != 1 || endpoint.writes != 1) {
                throw new IllegalStateException("A subscriber got " + endpoint.messages + " messages in " + endpoint.writes
                        + " writes instead of 1 in 1");
            }
        }
    }

    /** Every subscriber got every message published: nothing was dropped or left queued. */
    @TearDown
    public void tearDown() {
        try {
            for (CountingEndpoint endpoint : endpoints) {
                if (endpoint.messages != published) {
                    throw new IllegalStateException("A subscriber got " + endpoint.messages + " of the " + published + " messages published");
                }
            }
        } finally {
            bayeux.stop();
        }
    }

    @Benchmark
    public long publishToAllSubscribers() {
        channel.publish(null, data, Promise.noop());
        published++;
        return endpoints[sessions - 1].bytes;
    }

    /** Handshake, first connect and subscription, as JSON through the connection, as a transport would send them. */
    private void subscribe(Connection connection) throws Exception {
        Map<String, Object> handshake = reply(send(connection, "[{\"id\":\"1\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"websocket\"]}]"), "/meta/handshake");
        String clientId = (String) handshake.get("clientId");
        reply(send(connection, "[{\"id\":\"2\",\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"clientId\":\""
                + clientId + "\"}]"), "/meta/connect");
        reply(send(connection, "[{\"id\":\"3\",\"channel\":\"/meta/subscribe\",\"subscription\":\"" + CHANNEL
                + "\",\"clientId\":\"" + clientId + "\"}]"), "/meta/subscribe");
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> send(Connection connection, String json) throws Exception {
        CompletableFuture<List<ServerMessage>> replies = new CompletableFuture<>();
        connection.handle(bayeux.decode(json.getBytes(StandardCharsets.UTF_8)), replies::complete);
        byte[] encoded = bayeux.encode(replies.get(10, TimeUnit.SECONDS));
        return (List<Map<String, Object>>) bayeux.jsonCodec().parse(encoded);
    }

    private static Map<String, Object> reply(List<Map<String, Object>> messages, String channel) {
        for (Map<String, Object> message : messages) {
            if (channel.equals(message.get("channel")) && Boolean.TRUE.equals(message.get("successful"))) {
                return message;
            }
        }
        throw new IllegalStateException("No successful reply on " + channel + " in " + messages);
    }

    /**
     * A WebSocket-like endpoint in memory: each write encodes its batch as a transport would,
     * counts it, and completes at once. Written by one thread at a time (the session's flusher,
     * or the loop's rounds).
     */
    static final class CountingEndpoint implements Endpoint {
        /** The "event loop": whoever hands it work runs it at once, as a loop that is already there does. */
        private static final Executor INLINE = Runnable::run;
        private final BayeuxServerImpl bayeux;
        private final boolean eventLoop;
        long bytes;
        long messages;
        long writes;
        long flushes;

        CountingEndpoint(BayeuxServerImpl bayeux, boolean eventLoop) {
            this.bayeux = bayeux;
            this.eventLoop = eventLoop;
        }

        @Override
        public Executor eventLoop() {
            return eventLoop ? INLINE : null;
        }

        @Override
        public void flush() {
            flushes++;
        }

        @Override
        public String transportName() {
            return "websocket";
        }

        @Override
        public boolean canPush() {
            return true;
        }

        @Override
        public void write(List<ServerMessage> batch, Promise<Void> written) {
            try {
                bytes += bayeux.encode(batch).length;
                messages += batch.size();
                writes++;
                written.succeed(null);
            } catch (JsonCodec.JsonException x) {
                written.fail(x);
            }
        }
    }
}
