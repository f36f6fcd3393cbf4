package io.bayeux.load;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code bayeux-load bare-server}: {@link BareBroadcastServer}, the benchmark's floor, until stopped. */
@Command(name = "bare-server", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Runs a bare Netty broadcast that speaks just enough Bayeux over WebSocket and long-polling for the chat benchmark: "
                + "each published message encoded once and written to each subscriber. A yardstick for compare, not a server.")
final class BareServerCommand implements Callable<Integer> {
    @Option(names = "--host", description = "Address to listen on (default: ${DEFAULT-VALUE})")
    String host = "127.0.0.1";

    @Option(names = "--port", description = "Port; 0 picks a free one (default: ${DEFAULT-VALUE})")
    int port = 8080;

    @Option(names = "--io-threads", description = "Netty I/O threads; 0 is one per core, as this project's server has (default: ${DEFAULT-VALUE})")
    int ioThreads;

    @Option(names = "--broadcast-timing", negatable = false,
            description = "Tells in the stats when the last broadcast arrived and when its last write ended, for the density mode")
    boolean broadcastTiming;

    @Override
    public Integer call() throws Exception {
        if (ioThreads < 0) {
            throw new IllegalArgumentException("--io-threads must be 0 or more: " + ioThreads);
        }
        BareBroadcastServer server = new BareBroadcastServer(ioThreads, broadcastTiming).start(host, port);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "bayeux-load-bare-server-shutdown"));
        System.out.println("Bare broadcast listening on " + server.uri() + " (pid " + ProcessHandle.current().pid()
                + "), WebSocket only; Ctrl-C stops it.");
        stopped.await();
        return 0;
    }
}
