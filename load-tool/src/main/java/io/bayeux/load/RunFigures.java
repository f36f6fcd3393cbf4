package io.bayeux.load;

import io.bayeux.api.Message;
import io.bayeux.client.BayeuxClient;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What a run measures besides its deliveries: the load tool's own CPU, and the server's CPU,
 * memory and stats (from its process when it runs on this machine, and from its stats service or,
 * without one, its Prometheus scrape endpoint; a server on another machine's CPU from those only), and what it sent on the wire (from the kernel,
 * {@link SocketFigures}).
 * Immutable.
 */
final class RunFigures {
    private static final Duration CONNECTED_WAIT = Duration.ofSeconds(5);
    private static final Duration STATS_TIMEOUT = Duration.ofSeconds(3);

    private final Long serverPid;
    private final int ioThreads;
    /** The servers' endpoints, whose connections {@link SocketFigures} reads. */
    private final List<URI> urls;

    /**
     * @param serverPid the server's process id when it runs on this machine, or null
     * @param ioThreads the event loops shared by every client
     * @param urls      the servers' endpoints
     */
    RunFigures(Long serverPid, int ioThreads, List<URI> urls) {
        this.serverPid = serverPid;
        this.ioThreads = ioThreads;
        this.urls = List.copyOf(urls);
    }

    /** What the servers' connections sent so far, to measure from; null when it cannot be read. */
    SocketFigures.Sample wireSample() {
        return SocketFigures.sample(urls);
    }

    /** The tool's CPU since {@code cpuStart} (its {@link ProcessFigures#ownCpuNanos()}) over {@code seconds}. */
    RunResult.Tool tool(long cpuStart, double seconds, long deliveries) {
        double cpu = (ProcessFigures.ownCpuNanos() - cpuStart) / 1e9;
        return new RunResult.Tool(cpu, 100 * cpu / seconds, deliveries == 0 ? null : cpu * 1e6 / deliveries, ioThreads);
    }

    /**
     * The server's figures now, against those taken before: CPU since {@code cpuStart}, memory,
     * and its stats (asked only when {@code statsBefore} shows it has a stats service); its
     * writes since {@code statsAtStart} (its stats when the measured phase started, or null), and
     * so its CPU too when the tool does not know its process.
     */
    RunResult.Server server(ProcessFigures.CpuSample cpuStart, SocketFigures.Sample wireStart, long deliveries, Long rssBefore,
                            Long heapBefore, Map<String, Object> statsBefore, Map<String, Object> statsAtStart, BayeuxClient statsClient) {
        Map<String, Object> stats = statsBefore == null ? null : serverStats(statsClient);
        SocketFigures.Sample wireEnd = wireStart == null ? null : SocketFigures.sample(urls);
        RunResult.Wire wire = wireEnd == null ? null : wireEnd.since(wireStart, deliveries);
        RunResult.Writes writes = RunResult.Writes.between(statsAtStart, stats, deliveries);
        if (serverPid == null) {
            // From the measured phase's start when there was one (the warm-up's CPU is not the deliveries').
            Double cpu = reportedCpuSeconds(statsAtStart != null ? statsAtStart : statsBefore, stats);
            Double perDelivery = cpu == null || deliveries == 0 ? null : cpu * 1e6 / deliveries;
            return new RunResult.Server(null, cpu, perDelivery, null, null, null, null, null, null, stats, statsBefore, wire, writes);
        }
        ProcessFigures.CpuSample cpuEnd = ProcessFigures.cpuSample(serverPid);
        Double cpu = cpuStart == null || cpuEnd == null ? null : (cpuEnd.processNanos() - cpuStart.processNanos()) / 1e9;
        Double perDelivery = cpu == null || deliveries == 0 ? null : cpu * 1e6 / deliveries;
        Long jitNanos = cpu == null ? null : cpuEnd.compilerNanosSince(cpuStart);
        Double jit = jitNanos == null ? null : jitNanos / 1e9;
        Double perDeliveryWithoutJit = jit == null || deliveries == 0 ? null : Math.max(0, cpu - jit) * 1e6 / deliveries;
        Long rss = ProcessFigures.rssBytes(serverPid);
        Long heap = ProcessFigures.heapAfterGcBytes(serverPid);
        return new RunResult.Server(serverPid, cpu, perDelivery, jit, perDeliveryWithoutJit, rss, rssBefore, heap, heapBefore,
                stats, statsBefore, wire, writes);
    }

    /**
     * The CPU a server whose process is not on this machine reports it used between two of its
     * stats: its stats service's {@code cpuNanos}, or its scrape's {@code process_cpu_time_ns_total}
     * ({@link MetricsScrape}); null when either does not tell it.
     */
    static Double reportedCpuSeconds(Map<String, Object> before, Map<String, Object> after) {
        Long start = stat(before, "cpuNanos");
        Long end = stat(after, "cpuNanos");
        return start == null || end == null || end < start ? null : (end - start) / 1e9;
    }

    /** Where a remote server's CPU figure came from: {@code /metrics} or {@code its stats service}. */
    static String cpuSource(Map<String, Object> stats) {
        return stats != null && "metrics".equals(stats.get("source")) ? "/metrics (process_cpu_time_ns_total)" : "its stats service";
    }

    /**
     * What the server's stats service answers; for a server without one, what its scrape
     * endpoint tells ({@link MetricsScrape}); null when it has neither.
     */
    static Map<String, Object> serverStats(BayeuxClient client) {
        Map<String, Object> stats = statsService(client);
        return stats != null ? stats : MetricsScrape.stats(client.getURL());
    }

    /** What the server's stats service answers, or null when it has none. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> statsService(BayeuxClient client) {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        try {
            if (!client.waitFor(CONNECTED_WAIT, BayeuxClient.State.CONNECTED)) {
                return null;
            }
            client.remoteCall(StatsService.TARGET, Map.of(), reply::complete);
            Message answer = reply.get(STATS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return answer.isSuccessful() && answer.getData() instanceof Map<?, ?> data ? (Map<String, Object>) data : null;
        } catch (TimeoutException | ExecutionException x) {
            return null;
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The number {@code name} of {@code stats}, or null. */
    static Long stat(Map<String, Object> stats, String name) {
        return stats != null && stats.get(name) instanceof Number n ? n.longValue() : null;
    }
}
