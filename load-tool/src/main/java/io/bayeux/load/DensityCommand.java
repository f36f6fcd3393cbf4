package io.bayeux.load;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code bayeux-load density}: how many idle WebSocket connections a server holds and what each
 * costs it. Against {@code --url} (with {@code --server-pid} for its heap, RSS and CPU) or a
 * server it starts with {@code --server CMD} ($PORT set, stopped by pid at the end); see
 * {@link DensityRun}. Exit code 0 when every client connected and subscribed, every broadcast
 * reached every client and the server returned to its empty state after each round; 1 otherwise.
 */
@Command(name = "density", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Idle WebSocket clients step by step (10 rooms each, connect held) over several source addresses: the server's memory per connection, the time to connect them, one broadcast to all, and whether memory returns when they leave.")
final class DensityCommand implements Callable<Integer> {
    @Option(names = "--url", paramLabel = "URL", description = "A running server's endpoint (default: http://127.0.0.1:8080/cometd)")
    URI url;

    @Option(names = "--server-pid", paramLabel = "PID", description = "With --url: the server's process on this machine, for heap after GC, RSS and CPU")
    Long serverPid;

    @Option(names = "--server", paramLabel = "CMD", description = "Shell command starting the server on $PORT (then no --url); stopped at the end")
    String server;

    @Option(names = "--path", description = "With --server: the endpoint's path (default: ${DEFAULT-VALUE})")
    String path = "/cometd";

    @Option(names = "--steps", split = ",", paramLabel = "N,N,...", description = "The client counts at which the server is measured (default: 1000,5000,10000,19000)")
    List<Integer> steps = List.of(1000, 5000, 10000, 19000);

    @Option(names = "--source-addresses", paramLabel = "N", description = "Loopback source addresses the clients bind in turn, 127.0.0.2 onwards (default: ${DEFAULT-VALUE})")
    int sourceAddresses = 4;

    @Option(names = "--rooms", description = "Rooms besides the broadcast channel (default: ${DEFAULT-VALUE})")
    int rooms = 1000;

    @Option(names = "--rooms-per-client", description = "Channels each client joins, the broadcast channel included (default: ${DEFAULT-VALUE})")
    int roomsPerClient = 10;

    @Option(names = "--no-client-compression", description = "The clients do not offer permessage-deflate")
    boolean noClientCompression;

    @Option(names = "--normal-client-scheduling",
            description = "The clients' event loops run with normal scheduling, not in SCHED_BATCH (where they do not preempt the server on the machine they share)")
    boolean normalClientScheduling;

    @Option(names = "--client-processes", paramLabel = "N",
            description = "Processes holding the clients: this one and N-1 child JVMs of the load tool, each its share (each has its own open-file limit) (default: ${DEFAULT-VALUE})")
    int clientProcesses = 1;

    @Option(names = "--concurrency", paramLabel = "N", description = "Clients setting up at once (default: ${DEFAULT-VALUE})")
    int concurrency = 500;

    @Option(names = "--rounds", description = "Connect-all / leave-all rounds; the first goes by the steps (default: ${DEFAULT-VALUE})")
    int rounds = 1;

    @Option(names = "--warmup", paramLabel = "N",
            description = "Clients of a round (connect, subscribe, broadcast, leave) before the empty server is measured, 0 for none: the baseline is then a server that has loaded its classes (default: ${DEFAULT-VALUE})")
    int warmup = 100;

    @Option(names = "--broadcasts", paramLabel = "N",
            description = "Broadcasts to all in each round, one after another, each timed to the last client (default: ${DEFAULT-VALUE})")
    int broadcasts = 1;

    @Option(names = "--hold", paramLabel = "DURATION", description = "How long the server's CPU is measured with all clients idle, 0 for not (default: ${DEFAULT-VALUE})")
    String hold = "10s";

    @Option(names = "--settle", paramLabel = "DURATION", description = "The longest wait after all leave for sessions and heap to return to the empty server's (default: ${DEFAULT-VALUE})")
    String settle = "10s";

    @Option(names = "--heap-tolerance", paramLabel = "KIB", description = "How much more heap after GC than the empty server's still counts as returned (default: ${DEFAULT-VALUE})")
    long heapToleranceKiB = 1024;

    @Option(names = "--connect-timeout", paramLabel = "DURATION", description = "The longest wait for each step's clients to be ready (default: ${DEFAULT-VALUE})")
    String connectTimeout = "120s";

    @Option(names = "--start-timeout", paramLabel = "DURATION", description = "With --server: the longest wait for it to accept connections (default: ${DEFAULT-VALUE})")
    String startTimeout = "120s";

    @Option(names = "--server-log", paramLabel = "FILE", description = "With --server: where its output goes (default: a temporary file)")
    Path serverLog;

    @Option(names = "--threads", paramLabel = "N", description = "Event-loop threads of the clients (default: the number of cores)")
    Integer threads;

    @Option(names = "--json", paramLabel = "FILE", description = "Write every figure as JSON")
    Path json;

    @Option(names = "--report", paramLabel = "FILE", description = "Write an HTML page of the figures, with charts (density-report puts several runs side by side)")
    Path report;

    @Override
    public Integer call() throws Exception {
        if (server != null && (url != null || serverPid != null)) {
            throw new IllegalArgumentException("--server starts its own server: no --url or --server-pid");
        }
        if (sourceAddresses < 1 || sourceAddresses > 250) {
            throw new IllegalArgumentException("--source-addresses must be 1 to 250: " + sourceAddresses);
        }
        CompareCommand.ServerProcess process = null;
        URI target = url != null ? url : LoadTool.DEFAULT_URL;
        Long pid = serverPid;
        if (server != null) {
            int port = CompareCommand.freePort();
            Path log = serverLog != null ? serverLog : Files.createTempFile("bayeux-load-density", ".log");
            System.out.println("== " + server + " (PORT=" + port + ", output in " + log + ")");
            process = CompareCommand.ServerProcess.start(server, port, log, ScenarioOptions.parseDuration(startTimeout, "--start-timeout"));
            target = URI.create("http://127.0.0.1:" + port + path);
            pid = process.benchmarkPid();
        }
        try {
            DensityRun.Result result = new DensityRun(settings(target, pid), System.out).run();
            if (json != null) {
                Summary.writeJson(result, json);
                System.out.println("JSON written to " + json);
            }
            if (report != null) {
                DensityReport.writeHtml(report, List.of(new DensityReport.Run(server != null ? server : target.toString(),
                        Summary.JSON.valueToTree(result))));
                System.out.println("HTML report written to " + report);
            }
            return passed(result) ? 0 : 1;
        } catch (BenchmarkException x) {
            System.err.println(x.getMessage());
            return 3;
        } finally {
            if (process != null) {
                process.stop();
            }
        }
    }

    DensityRun.Settings settings(URI target, Long pid) throws UnknownHostException {
        return new DensityRun.Settings(target, pid, steps, sourceAddresses(sourceAddresses), !noClientCompression, rooms, roomsPerClient,
                concurrency, rounds, ScenarioOptions.parseDuration(hold, "--hold"), ScenarioOptions.parseDuration(settle, "--settle"),
                heapToleranceKiB * 1024, ScenarioOptions.parseDuration(connectTimeout, "--connect-timeout"),
                threads != null ? threads : Runtime.getRuntime().availableProcessors(), !normalClientScheduling, warmup, clientProcesses,
                broadcasts);
    }

    /** 127.0.0.2, 127.0.0.3, ...: {@code n} loopback addresses (Linux routes all of 127.0.0.0/8 to the loopback interface). */
    static List<InetAddress> sourceAddresses(int n) throws UnknownHostException {
        List<InetAddress> addresses = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            addresses.add(InetAddress.getByAddress(new byte[]{127, 0, 0, (byte) (2 + i)}));
        }
        return addresses;
    }

    static boolean passed(DensityRun.Result result) {
        return result.rounds().stream().allMatch(r -> r.everyBroadcastArrived() && r.settleSeconds() != null);
    }
}
