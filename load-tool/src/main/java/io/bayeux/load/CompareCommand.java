package io.bayeux.load;

import io.bayeux.common.LoopbackPorts;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * {@code bayeux-load compare --a CMD --b CMD}: for every run, starts the server command fresh
 * (with {@code $PORT} set to a free port), waits until it accepts connections, runs the scenario
 * against {@code http://127.0.0.1:$PORT/cometd}, stops it by its process id, and at the end
 * gives per-metric medians and A/B ratios with their spread.
 */
@Command(name = "compare", mixinStandardHelpOptions = true, sortOptions = false,
        description = "A/B comparison: the same scenario against two server commands, fresh servers every run, ABBA order.")
final class CompareCommand implements Callable<Integer> {
    @Option(names = "--a", required = true, paramLabel = "CMD", description = "Shell command starting server A; it must listen on $PORT")
    String a;

    @Option(names = "--b", required = true, paramLabel = "CMD", description = "Shell command starting server B; it must listen on $PORT")
    String b;

    @Option(names = "--rounds", description = "Rounds, each one run of A and one of B, in ABBA order (default: ${DEFAULT-VALUE})")
    int rounds = 4;

    @Option(names = "--path", description = "The endpoint's path on both servers (default: ${DEFAULT-VALUE})")
    String path = "/cometd";

    @Option(names = "--start-timeout", paramLabel = "DURATION", description = "The longest wait for a server to accept connections (default: ${DEFAULT-VALUE})")
    String startTimeout = "120s";

    @Option(names = "--server-logs", paramLabel = "DIR", description = "Where the servers' output goes, one file per run (default: a temporary directory)")
    Path logs;

    @Mixin
    ScenarioOptions scenario = new ScenarioOptions();

    @Mixin
    LoadTool.OutputOptions output = new LoadTool.OutputOptions();

    @Override
    public Integer call() throws Exception {
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds must be positive: " + rounds);
        }
        if (!scenario.urls.isEmpty()) {
            throw new IllegalArgumentException("compare starts its own servers: no --url");
        }
        Path logDir = logs != null ? Files.createDirectories(logs) : Files.createTempDirectory("bayeux-load-compare");
        Comparison comparison = run(a, b, rounds, path, scenario, output.ioThreads(scenario.clients),
                ScenarioOptions.parseDuration(startTimeout, "--start-timeout"), logDir, System.console() != null);
        print(comparison);
        output.write(comparison, comparison.runs(), comparison);
        for (RunResult r : comparison.runs()) {
            if (r.counts().lost() != 0 || r.counts().duplicated() != 0) {
                return 1;
            }
        }
        return comparison.failedRuns().isEmpty() ? 0 : 1;
    }

    static Comparison run(String a, String b, int rounds, String path, ScenarioOptions options, int ioThreads,
                          Duration startTimeout, Path logDir, boolean progress) throws Exception {
        List<String> order = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            if (round % 2 == 0) {
                order.add("A" + (round + 1));
                order.add("B" + (round + 1));
            } else {
                order.add("B" + (round + 1));
                order.add("A" + (round + 1));
            }
        }
        List<RunResult> runs = new ArrayList<>();
        java.util.Map<String, String> failed = new java.util.LinkedHashMap<>();
        for (String label : order) {
            String command = label.startsWith("A") ? a : b;
            int port = freePort();
            Path log = logDir.resolve("server-" + label + ".log");
            System.out.println("== " + label + ": " + command + " (PORT=" + port + ", output in " + log + ")");
            Scenario s = options.toScenario(URI.create("http://127.0.0.1:" + port + path));
            try {
                ServerProcess server = ServerProcess.start(command, port, log, startTimeout);
                try {
                    RunResult result = new ChatBenchmark(s, label, server.benchmarkPid(), ioThreads, System.out, progress)
                            .windows(options.windows()).run();
                    Summary.print(result, System.out);
                    runs.add(result);
                } finally {
                    server.stop();
                }
            } catch (BenchmarkException x) {
                // One failed run does not sink the comparison: it is reported, and left out of the medians.
                System.out.println(label + " FAILED: " + x.getMessage());
                failed.put(label, x.getMessage());
            }
        }
        if (runs.isEmpty()) {
            throw new BenchmarkException("Every run failed: " + failed);
        }
        return new Comparison(a, b, rounds, order, metrics(runs), runs, failed);
    }

    private static List<Comparison.Metric> metrics(List<RunResult> runs) {
        List<Comparison.Metric> metrics = new ArrayList<>();
        metrics.add(metric(runs, "delivered msg/s", true, r -> r.rates().deliveredPerSecond()));
        metrics.add(metric(runs, "published msg/s", true, r -> r.rates().publishedPerSecond()));
        metrics.add(metric(runs, "latency p50 (µs)", false, r -> r.latency().p50()));
        metrics.add(metric(runs, "latency p90 (µs)", false, r -> r.latency().p90()));
        metrics.add(metric(runs, "latency p99 (µs)", false, r -> r.latency().p99()));
        metrics.add(metric(runs, "latency p99.9 (µs)", false, r -> r.latency().p999()));
        metrics.add(metric(runs, "latency max (µs)", false, r -> r.latency().max()));
        metrics.add(metric(runs, "server CPU (µs/delivery)", false, r -> orNaN(r.server().cpuMicrosPerDelivery())));
        metrics.add(metric(runs, "server CPU (s)", false, r -> orNaN(r.server().cpuSeconds())));
        metrics.add(metric(runs, "server JIT CPU (s)", false, r -> orNaN(r.server().jitCpuSeconds())));
        metrics.add(metric(runs, "server CPU w/o JIT (µs/delivery)", false, r -> orNaN(r.server().cpuMicrosPerDeliveryWithoutJit())));
        metrics.add(metric(runs, "server RSS (MiB)", false, r -> r.server().rssBytes() == null ? Double.NaN : r.server().rssBytes() / 1048576.0));
        metrics.add(metric(runs, "server heap after GC (MiB)", false,
                r -> r.server().heapAfterGcBytes() == null ? Double.NaN : r.server().heapAfterGcBytes() / 1048576.0));
        metrics.add(metric(runs, "server bytes sent / delivery", false, r -> r.server().wire() == null ? Double.NaN : orNaN(r.server().wire().bytesPerDelivery())));
        metrics.add(metric(runs, "server TCP segments / delivery", false,
                r -> r.server().wire() == null ? Double.NaN : orNaN(r.server().wire().segmentsPerDelivery())));
        metrics.add(metric(runs, "server frames / delivery", false,
                r -> r.server().writes() == null ? Double.NaN : orNaN(r.server().writes().framesPerDelivery())));
        metrics.add(metric(runs, "server flushes / delivery", false,
                r -> r.server().writes() == null ? Double.NaN : orNaN(r.server().writes().flushesPerDelivery())));
        metrics.add(metric(runs, "tool CPU (% of a core)", false, r -> r.tool().cpuPercentOfOneCore()));
        metrics.add(metric(runs, "lost", false, r -> r.counts().lost()));
        metrics.add(metric(runs, "duplicated", false, r -> r.counts().duplicated()));
        metrics.addAll(WindowMetrics.of(runs));
        if (runs.stream().anyMatch(r -> r.stalled() != null)) {
            metrics.add(metric(runs, "all delivered in (s)", false, r -> r.stalled() == null ? Double.NaN : orNaN(r.stalled().deliverySeconds())));
            metrics.add(metric(runs, "heap growth (MiB)", false, r -> r.stalled() == null ? Double.NaN : growthMiB(r.stalled().heapBeforeBytes(), r.stalled().heapAfterBytes())));
            metrics.add(metric(runs, "RSS growth (MiB)", false, r -> r.stalled() == null ? Double.NaN : growthMiB(r.stalled().rssBeforeBytes(), r.stalled().rssAfterBytes())));
            metrics.add(metric(runs, "direct growth (MiB)", false, r -> r.stalled() == null ? Double.NaN : growthMiB(r.stalled().directBeforeBytes(), r.stalled().directAfterBytes())));
            metrics.add(metric(runs, "queued after", false, r -> r.stalled() == null || r.stalled().queuedAfter() == null ? Double.NaN : r.stalled().queuedAfter()));
        }
        return metrics;
    }

    private static double growthMiB(Long before, Long after) {
        return before == null || after == null ? Double.NaN : (after - before) / 1048576.0;
    }

    private static double orNaN(Double value) {
        return value == null ? Double.NaN : value;
    }

    static Comparison.Metric metric(List<RunResult> runs, String name, boolean higherIsBetter, ToDoubleFunction<RunResult> value) {
        List<Double> as = new ArrayList<>();
        List<Double> bs = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        int rounds = runs.stream().mapToInt(r -> Integer.parseInt(r.label().substring(1))).max().orElse(0);
        for (int round = 1; round <= rounds; round++) {
            Double va = valueOf(runs, "A" + round, value);
            Double vb = valueOf(runs, "B" + round, value);
            if (va != null) {
                as.add(va);
            }
            if (vb != null) {
                bs.add(vb);
            }
            if (va != null && vb != null && vb != 0) {
                ratios.add(va / vb);
            }
        }
        return new Comparison.Metric(name, higherIsBetter, median(as), min(as), max(as), median(bs), min(bs), max(bs),
                median(ratios), min(ratios), max(ratios));
    }

    private static Double valueOf(List<RunResult> runs, String label, ToDoubleFunction<RunResult> value) {
        for (RunResult r : runs) {
            if (r.label().equals(label)) {
                double v = value.applyAsDouble(r);
                return Double.isNaN(v) ? null : v;
            }
        }
        return null;
    }

    static Double median(List<Double> values) {
        if (values.isEmpty()) {
            return null;
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    private static Double min(List<Double> values) {
        return values.stream().min(Double::compare).orElse(null);
    }

    private static Double max(List<Double> values) {
        return values.stream().max(Double::compare).orElse(null);
    }

    static void print(Comparison c) {
        System.out.println();
        System.out.println("A: " + c.a());
        System.out.println("B: " + c.b());
        System.out.printf(Locale.ROOT, "%d rounds, order %s%n", c.rounds(), String.join(" ", c.order()));
        c.failedRuns().forEach((label, reason) -> System.out.println("  " + label + " failed: " + reason));
        System.out.printf(Locale.ROOT, "  %-34s %-30s %-30s %s%n", "metric", "A median (min-max)", "B median (min-max)", "A/B (min-max)");
        for (Comparison.Metric m : c.metrics()) {
            System.out.printf(Locale.ROOT, "  %-34s %-30s %-30s %s%n", m.name() + (m.higherIsBetter() ? " ↑" : " ↓"),
                    spread(m.medianA(), m.minA(), m.maxA()), spread(m.medianB(), m.minB(), m.maxB()),
                    m.ratio() == null ? "-" : String.format(Locale.ROOT, "%.3f (%.3f-%.3f)", m.ratio(), m.ratioMin(), m.ratioMax()));
        }
    }

    private static String spread(Double median, Double min, Double max) {
        return median == null ? "-" : Format.number(median) + " (" + Format.number(min) + "-" + Format.number(max) + ")";
    }

    /** The port for the next server: free now, and none an outgoing connection takes before the server binds it. */
    static int freePort() throws IOException {
        return LoopbackPorts.unused();
    }

    /** A server started from a shell command: its process tree, stopped by pid. */
    static final class ServerProcess {
        private final Process process;
        private final Path log;

        private ServerProcess(Process process, Path log) {
            this.process = process;
            this.log = log;
        }

        static ServerProcess start(String command, int port, Path log, Duration timeout) throws IOException, InterruptedException {
            ProcessBuilder builder = new ProcessBuilder("bash", "-c", command);
            builder.environment().put("PORT", Integer.toString(port));
            builder.redirectErrorStream(true).redirectOutput(log.toFile());
            ServerProcess server = new ServerProcess(builder.start(), log);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!accepts(port)) {
                if (!server.process.isAlive()) {
                    throw new BenchmarkException("The server command exited (" + server.process.exitValue() + ") before accepting on port "
                            + port + ": " + command + "\n" + tail(log));
                }
                if (System.nanoTime() > deadline) {
                    server.stop();
                    throw new BenchmarkException("The server did not accept on port " + port + " within " + timeout.toSeconds() + " s: "
                            + command + "\n" + tail(log));
                }
                Thread.sleep(100);
            }
            return server;
        }

        private static boolean accepts(int port) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port), 500);
                return true;
            } catch (IOException x) {
                return false;
            }
        }

        private static String tail(Path log) {
            try {
                List<String> lines = Files.readAllLines(log);
                return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
            } catch (IOException x) {
                return "";
            }
        }

        /** The JVM serving: the started process when it is java (bash exec'd it), else its first java descendant. */
        Long benchmarkPid() {
            ProcessHandle root = process.toHandle();
            if (isJava(root)) {
                return root.pid();
            }
            Optional<ProcessHandle> java = root.descendants().filter(ServerProcess::isJava).findFirst();
            return java.map(ProcessHandle::pid).orElse(root.pid());
        }

        private static boolean isJava(ProcessHandle handle) {
            return handle.info().command().map(c -> c.endsWith("/java") || c.equals("java")).orElse(false);
        }

        /** Stops the process tree: SIGTERM to each process by pid, then SIGKILL to what is left after 15 s. */
        void stop() throws InterruptedException {
            List<ProcessHandle> tree = new ArrayList<>(process.toHandle().descendants().toList());
            tree.add(process.toHandle());
            tree.forEach(ProcessHandle::destroy);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            for (ProcessHandle handle : tree) {
                long left = deadline - System.nanoTime();
                try {
                    handle.onExit().get(Math.max(1, left), TimeUnit.NANOSECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException x) {
                    handle.destroyForcibly();
                }
            }
        }

        @Override
        public String toString() {
            return "ServerProcess[" + process.pid() + ", " + log + "]";
        }
    }

}
