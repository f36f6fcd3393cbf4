package io.bayeux.load;

import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.transport.NettyBayeuxServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code bayeux-load server}: this project's server, set up for the benchmark, until stopped. */
@Command(name = "server", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Runs this project's server for the benchmark: chat rooms open, ack extension, /service/load/stats.")
final class ServerCommand implements Callable<Integer> {
    @Option(names = "--host", description = "Address to listen on (default: ${DEFAULT-VALUE})")
    String host = "127.0.0.1";

    @Option(names = "--port", description = "Port; 0 picks a free one (default: ${DEFAULT-VALUE})")
    int port = 8080;

    @Option(names = "--max-queue", description = "Messages queued per session before the oldest is dropped (default: ${DEFAULT-VALUE})")
    int maxQueue = BenchmarkServer.DEFAULT_MAX_QUEUE;

    @Option(names = "--io-threads", description = "Netty I/O threads; 0 is the server's default, one per core (default: ${DEFAULT-VALUE})")
    int ioThreads;

    @Option(names = "--connect-gather", paramLabel = "MS",
            description = "Least time in ms between two long-polling connect replies of a session; 0 answers at once (default: the server's, ${DEFAULT-VALUE})")
    long connectGatherMillis = BayeuxServerConfig.DEFAULT_CONNECT_GATHER.toMillis();

    @Override
    public Integer call() throws Exception {
        if (connectGatherMillis < 0) {
            throw new IllegalArgumentException("--connect-gather must be 0 or more (ms): " + connectGatherMillis);
        }
        NettyBayeuxServer server = BenchmarkServer.builder(host, port, maxQueue, ioThreads, Duration.ofMillis(connectGatherMillis), null).build().start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.stop();
            stopped.countDown();
        }, "bayeux-load-server-shutdown"));
        System.out.println("Bayeux load server listening on " + server.uri() + " (pid " + ProcessHandle.current().pid() + "); Ctrl-C stops it.");
        stopped.await();
        return 0;
    }
}
