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
 * <p>Takes about 5 s of one core; the load is modest on purpose (a training run teaches which
 * code is hot, not how hot). Exits 0 when every message arrived, 1 otherwise (the launcher then
 * keeps no cache).
 */
public final class AotTraining {
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    private AotTraining() {
    }

    public static void main(String[] args) throws Exception {
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        NettyBayeuxServer server = BenchmarkServer.builder(BenchmarkServer.Settings.defaults("127.0.0.1", 0), null).build().start();
        boolean clean;
        try {
            clean = run(server.uri(), Scenario.WEBSOCKET, 300, 30, 300, Duration.ofMillis(10))
                    & run(server.uri(), Scenario.LONG_POLLING, 100, 10, 100, Duration.ofMillis(20));
        } finally {
            server.stop();
        }
        // The JVM writes the cache as it exits.
        System.exit(clean ? 0 : 1);
    }

    /** {@code clients} clients in {@code rooms} rooms, 5 each, publishing {@code batches} batches of 10; true when nothing was lost. */
    private static boolean run(URI url, String transport, int clients, int rooms, int batches, Duration interval) throws InterruptedException {
        Scenario scenario = new Scenario(List.of(url), transport, clients, rooms, 5, 42, 2000, 10, interval, batches, 0, 50,
                true, false, Duration.ZERO, false, null, null, Duration.ofSeconds(30), Duration.ofSeconds(60));
        RunResult result = new ChatBenchmark(scenario, "training " + transport, null, 2, QUIET, false).run();
        System.out.println(transport + ": " + result.counts().received() + " deliveries, " + result.counts().lost() + " lost");
        return result.counts().lost() == 0 && result.counts().duplicated() == 0;
    }
}
