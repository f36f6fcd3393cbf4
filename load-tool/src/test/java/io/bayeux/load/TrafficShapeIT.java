package io.bayeux.load;

import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.server.spi.ServerObserver;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.LongAdder;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * How publishers send a batch, as the server receives it: by default each message of a batch in
 * a frame of its own, from its own client; with {@code --one-frame-batches}, the batch in one
 * frame from one client.
 */
class TrafficShapeIT {
    /** Not a subscription batch's size (each client joins 5 rooms in one batch), so only publishes make it. */
    private static final int BATCH = 3;
    private static final int BATCHES = 20;
    private static final int WARMUP = 5;

    @RegisterExtension
    final BenchmarkServerFixture servers = new BenchmarkServerFixture();

    @Test
    @Timeout(60)
    void eachMessageOfABatchArrivesInAFrameOfItsOwn() throws Exception {
        ConcurrentMap<Integer, LongAdder> frames = run(false);

        assertEquals(null, frames.get(BATCH), "no frame of a batch's size: " + frames);
    }

    @Test
    @Timeout(60)
    void oneFrameBatchesArriveAsOneFrameEach() throws Exception {
        ConcurrentMap<Integer, LongAdder> frames = run(true);

        assertEquals(BATCHES + WARMUP, frames.get(BATCH).sum(), "one frame per batch: " + frames);
    }

    /** Runs 30 clients publishing {@value #BATCHES} measured batches; the frames the server received, by their number of messages. */
    private ConcurrentMap<Integer, LongAdder> run(boolean oneFrameBatches) throws Exception {
        ConcurrentMap<Integer, LongAdder> frames = new ConcurrentHashMap<>();
        NettyBayeuxServer server = servers.start(bayeux -> ((BayeuxServerImpl) bayeux).observe(new ServerObserver() {
            @Override
            public void received(String transport, int messages) {
                frames.computeIfAbsent(messages, n -> new LongAdder()).increment();
            }
        }));
        Scenario scenario = new Scenario(List.of(server.uri()), Scenario.WEBSOCKET, 30, 20, 5, 1, 2000, BATCH, Duration.ofMillis(10),
                BATCHES, WARMUP, 50, true, false, Duration.ofSeconds(1), false, null, null, Duration.ofSeconds(30), Duration.ofSeconds(60))
                .withTraffic(oneFrameBatches, false);

        ByteArrayOutputStream said = new ByteArrayOutputStream();
        ChatBenchmark benchmark = new ChatBenchmark(scenario, "test", null, 2, new PrintStream(said, true), false);
        RunResult result = benchmark.run();

        assertEquals(0, result.counts().lost(), () -> result.counts() + ", " + result.connect() + ", first lost: " + benchmark.lostExamples(10) + "\n" + said);
        assertEquals((BATCHES + WARMUP) * BATCH, result.counts().published());
        return frames;
    }
}
