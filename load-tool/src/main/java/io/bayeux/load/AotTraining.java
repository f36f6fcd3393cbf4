package io.bayeux.load;

import io.bayeux.transport.NettyBayeuxServer;
import io.netty.util.ResourceLeakDetector;

import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * The training run of the launcher's AOT cache ({@code bin/aot-cache}, JDK 25 and newer): this
 * project's benchmark server and a few hundred of the load tool's clients in one JVM, a few
 * seconds of chat over WebSocket (permessage-deflate) and then over long-polling, so that the JVM
 * records the classes both sides load and link and the profiles of their hot methods
 * ({@code -XX:AOTCacheOutput}). A JVM started with the cache then begins where this one ended
 * instead of in the interpreter: {@code bin/bayeux-load server} and the load tool's own clients alike.
 *
 * <p>Two seconds of chat over WebSocket (200 clients, 20 rooms, 2,000 messages) and one over
 * long-polling (50 clients): a few seconds of CPU. The load is modest on purpose: a training run
 * teaches which code is hot, not how hot. Exits 0 when every message arrived, 1 otherwise (the launcher then
 * keeps no cache).
 */
public final class AotTraining {
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    private AotTraining() {
    }

    public static void main(String[] args) throws Exception {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        // The JVM writes the cache as it exits.
        System.exit(train(System.out) ? 0 : 1);
    }

    /** Runs the training workload against a server of its own; true when every message arrived exactly once. */
    static boolean train(PrintStream out) throws InterruptedException {
        NettyBayeuxServer server = BenchmarkServer.builder(BenchmarkServer.Settings.defaults("127.0.0.1", 0), null).build().start();
        try {
            return run(server.uri(), Scenario.WEBSOCKET, 200, 20, 200, Duration.ofMillis(10), out)
                    & run(server.uri(), Scenario.LONG_POLLING, 50, 10, 50, Duration.ofMillis(20), out);
        } finally {
            server.stop();
        }
    }

    /** {@code clients} clients in {@code rooms} rooms, 5 each, publishing {@code batches} batches of 10; true when nothing was lost. */
    private static boolean run(URI url, String transport, int clients, int rooms, int batches, Duration interval, PrintStream out)
            throws InterruptedException {
        Scenario scenario = new Scenario(List.of(url), transport, clients, rooms, 5, 42, 2000, 10, interval, batches, 0, 50,
                true, false, Duration.ZERO, false, null, null, Duration.ofSeconds(30), Duration.ofSeconds(60));
        RunResult result = new ChatBenchmark(scenario, "training " + transport, null, 2, QUIET, false).run();
        out.println(transport + ": " + result.counts().received() + " deliveries, " + result.counts().lost() + " lost, "
                + result.counts().duplicated() + " duplicated");
        return result.counts().lost() == 0 && result.counts().duplicated() == 0;
    }
}
