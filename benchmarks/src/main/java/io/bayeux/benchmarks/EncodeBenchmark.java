package io.bayeux.benchmarks;

import io.bayeux.api.server.ServerMessage;
import io.bayeux.common.json.JacksonJsonCodec;
import io.bayeux.common.json.JsonCodec;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.server.internal.ServerMessageImpl;
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

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The encode step of a delivery: what one subscriber's write costs once a broadcast is encoded
 * ({@link BayeuxServerImpl#encode} of a batch of frozen broadcasts, whose JSON is cached), and
 * what encoding a message costs the first time (the Jackson codec on one message).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class EncodeBenchmark {
    /** A batch of frozen broadcasts, each already encoded once (as by the first of its recipients). */
    @State(Scope.Benchmark)
    public static class FrozenBatch {
        @Param({"1", "10"})
        public int messages;
        @Param({"50", "1024"})
        public int dataBytes;
        BayeuxServerImpl bayeux;
        List<ServerMessage> batch;

        @Setup
        public void setUp() throws JsonCodec.JsonException {
            bayeux = new BayeuxServerImpl(BayeuxServerConfig.builder().executor(Runnable::run).build());
            batch = new ArrayList<>();
            for (int i = 0; i < messages; i++) {
                ServerMessageImpl message = Payloads.frozenBroadcast("/chat/room" + i, dataBytes);
                message.encodeArray(bayeux.jsonCodec());
                batch.add(message);
            }
        }

        @TearDown
        public void tearDown() {
            bayeux.stop();
        }
    }

    /** One message, not frozen: the codec writes it from scratch every time. */
    @State(Scope.Benchmark)
    public static class OneMessage {
        @Param({"50", "1024"})
        public int dataBytes;
        final JsonCodec codec = new JacksonJsonCodec();
        ServerMessageImpl message;

        @Setup
        public void setUp() {
            message = new ServerMessageImpl();
            message.setChannel("/chat/room");
            message.setData(Payloads.data(dataBytes));
        }
    }

    /** A reply to a long-polling client's {@code /meta/connect} with the advice, as the server writes the first of a session's. */
    @State(Scope.Benchmark)
    public static class ConnectReply {
        final JsonCodec codec = new JacksonJsonCodec();
        ServerMessageImpl reply;

        @Setup
        public void setUp() {
            reply = new ServerMessageImpl();
            reply.setChannel("/meta/connect");
            reply.setId("1234");
            reply.setClientId("2b8f6d1e9c0a4f7e8d3c5b1a");
            reply.setSuccessful(true);
            reply.getAdvice(true).put("reconnect", "retry");
            reply.getAdvice(true).put("interval", 0L);
            reply.getAdvice(true).put("timeout", 30_000L);
        }
    }

    /** The codec's encode of a connect reply: a message of the common shape, written without a JSON generator. */
    @Benchmark
    public byte[] encodeOfConnectReply(ConnectReply state) throws JsonCodec.JsonException {
        return state.codec.encode(state.reply);
    }

    /** The same reply written by databind (the codec's {@code write}): its map serializer, for comparison. */
    @Benchmark
    public byte[] databindWriteOfConnectReply(ConnectReply state) throws JsonCodec.JsonException {
        return state.codec.write(state.reply);
    }

    @Benchmark
    public byte[] serverEncodeOfFrozenBatch(FrozenBatch state) throws JsonCodec.JsonException {
        return state.bayeux.encode(state.batch);
    }

    @Benchmark
    public byte[] jacksonEncodeOfOneMessage(OneMessage state) throws JsonCodec.JsonException {
        return state.codec.encode(state.message);
    }
}
