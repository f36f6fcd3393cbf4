package io.bayeux.load;

import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.transport.NettyBayeuxServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/** {@code bayeux-load server}: this project's server, set up for the benchmark, until stopped. */
@Command(name = "server", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Runs this project's server for the benchmark: chat rooms open (with --history-size, each keeps its last messages), ack extension, /service/load/stats.")
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

    @Option(names = "--max-interval", paramLabel = "MS",
            description = "How long in ms a session is kept without a connection before it expires (default: the server's, ${DEFAULT-VALUE})")
    long maxIntervalMillis = BayeuxServerConfig.DEFAULT_MAX_INTERVAL.toMillis();

    @Option(names = "--history-size", paramLabel = "N",
            description = "Every room (/chat/**) keeps its last N messages for clients that recover (ext.recover); 0 keeps none (default: ${DEFAULT-VALUE})")
    int historySize;

    @Option(names = "--history-ttl", paramLabel = "DURATION",
            description = "How long a room's message is kept, e.g. 30s, 5m (default: ${DEFAULT-VALUE}); with --history-size")
    String historyTtl = "5m";

    @Option(names = "--no-websocket-compression", negatable = false,
            description = "Declines permessage-deflate (on by default, as in CometD 8): to measure bytes on the wire and CPU per delivery without it")
    boolean noWebsocketCompression;

    @Option(names = "--websocket-compression-context", negatable = false,
            description = "Keeps a permessage-deflate context per connection for clients that allow it (fewer bytes, more CPU; off by default)")
    boolean websocketCompressionContext;

    @Option(names = "--metrics", negatable = false,
            description = "Binds a Prometheus registry (bayeux-metrics), serves it at /metrics and scrapes it every second itself: to measure what metrics cost")
    boolean metrics;

    @Option(names = "--broadcast-timing", negatable = false,
            description = "Times each broadcast inside the server (a publish's arrival to the flush of its last frame) for the density mode; not with --metrics")
    boolean broadcastTiming;

    @Option(names = "--warm-up", paramLabel = "MAX", arity = "0..1", fallbackValue = "30s",
            description = "Before opening the port, run real clients' messages through a throwaway server in this JVM until the JIT compilers are nearly idle, for at most MAX (default when given: ${FALLBACK-VALUE}): the first clients meet compiled code")
    String warmUp;

    @Override
    public Integer call() throws Exception {
        if (broadcastTiming && metrics) {
            throw new IllegalArgumentException("--broadcast-timing and --metrics both observe the server: choose one");
        }
        if (warmUp != null) {
            System.out.println(ServerWarmUp.run(ScenarioOptions.parseDuration(warmUp, "--warm-up")).line());
        }
        AtomicReference<NettyBayeuxServer> built = new AtomicReference<>();
        NettyBayeuxServer.Builder builder = BenchmarkServer.builder(settings(), null, () -> {
            NettyBayeuxServer current = built.get();
            return current == null ? null : current.writeCounts();
        }).websocketCompression(!noWebsocketCompression).websocketCompressionContext(websocketCompressionContext);
        if (broadcastTiming) {
            DeliveryTiming timing = new DeliveryTiming();
            builder.service(bayeux -> ((BayeuxServerImpl) bayeux).observe(timing));
        }
        ScrapedMetrics scraped = metrics ? ScrapedMetrics.addTo(builder) : null;
        NettyBayeuxServer server = builder.build();
        built.set(server);
        if (scraped != null) {
            scraped.bind(server);
        }
        server.start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (scraped != null) {
                scraped.close();
            }
            server.stop();
            stopped.countDown();
        }, "bayeux-load-server-shutdown"));
        System.out.println("Bayeux load server listening on " + server.uri() + " (pid " + ProcessHandle.current().pid() + ")"
                + (historySize > 0 ? ", rooms keep " + historySize + " messages for " + historyTtl : "")
                + (metrics ? ", metrics at /metrics, scraped every second" : "") + "; Ctrl-C stops it.");
        stopped.await();
        return 0;
    }

    /** The server's settings from the options; fails on a bad value, naming its option. */
    BenchmarkServer.Settings settings() {
        if (connectGatherMillis < 0) {
            throw new IllegalArgumentException("--connect-gather must be 0 or more (ms): " + connectGatherMillis);
        }
        if (maxIntervalMillis <= 0) {
            throw new IllegalArgumentException("--max-interval must be positive (ms): " + maxIntervalMillis);
        }
        if (historySize < 0) {
            throw new IllegalArgumentException("--history-size must be 0 or more: " + historySize);
        }
        Duration ttl = ScenarioOptions.parseDuration(historyTtl, "--history-ttl");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("--history-ttl must be positive: " + historyTtl);
        }
        return BenchmarkServer.Settings.defaults(host, port)
                .withMaxQueue(maxQueue)
                .withIoThreads(ioThreads)
                .withConnectGather(Duration.ofMillis(connectGatherMillis))
                .withMaxInterval(Duration.ofMillis(maxIntervalMillis))
                .withHistory(historySize > 0 ? HistoryPolicy.of(historySize, ttl) : null);
    }
}
