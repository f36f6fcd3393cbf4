package io.bayeux.load;

import io.netty.util.ResourceLeakDetector;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code bin/bayeux-load}: the chat benchmark against a running server, and its sub-commands
 * {@code server} (this project's server set up for the benchmark) and {@code compare} (A/B runs).
 */
@Command(name = "bayeux-load", mixinStandardHelpOptions = true, version = "bayeux-load 0.1",
        description = "The chat benchmark: clients join chat rooms, publishers send to them; every delivery is counted and timed.",
        subcommands = {ServerCommand.class, BareServerCommand.class, CompareCommand.class, DensityCommand.class, DensityReportCommand.class, DensityClientsCommand.class},
        sortOptions = false)
public final class LoadTool implements Callable<Integer> {
    static final URI DEFAULT_URL = URI.create("http://127.0.0.1:8080/cometd");

    @Mixin
    ScenarioOptions scenario = new ScenarioOptions();

    @Mixin
    OutputOptions output = new OutputOptions();

    @Option(names = "--server-pid", paramLabel = "PID", description = "The server's process on this machine: its CPU, RSS and (a JVM's) heap after GC are reported")
    Long serverPid;

    @Option(names = "--cpu-pid", paramLabel = "PID",
            description = "Another process of the cluster on this machine (a node, its Redis); repeat it: the CPU each used over the measured window, per delivery and per published message")
    List<Long> cpuPids;

    @Option(names = "--label", description = "The run's name in the outputs (default: ${DEFAULT-VALUE})")
    String label = "chat benchmark";

    @Override
    public Integer call() throws Exception {
        Scenario s = scenario.toScenario(DEFAULT_URL);
        PrintStream out = System.out;
        ChatBenchmark benchmark = new ChatBenchmark(s, label, serverPid, output.ioThreads(s.clients()), out, System.console() != null)
                .windows(scenario.windows());
        benchmark.watch(cpuPids == null ? List.of() : cpuPids);
        RunResult result;
        try {
            result = benchmark.run();
        } catch (BenchmarkException x) {
            System.err.println(x.getMessage());
            return 3;
        }
        Summary.print(result, out);
        benchmark.watchedFigures().forEach(figure -> out.println(figure.line()));
        if (result.counts().lost() > 0) {
            out.println("  first lost      " + String.join(", ", benchmark.lostExamples(5)));
        }
        output.write(result, List.of(result), null);
        Counts c = result.counts();
        // Refused publishes are a failure too, except where connections are cut on purpose.
        boolean clean = c.lost() == 0 && c.duplicated() == 0 && c.unexpected() == 0 && (s.cutEvery() != null || c.failedPublishes() == 0);
        return clean ? 0 : 1;
    }

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            // As in production, for the tool's clients and its benchmark server alike: Netty's default
            // records a stack trace for one buffer in 128 (about 1.5 % of the server's CPU in the chat
            // benchmark). The tests run with it on.
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        CommandLine line = new CommandLine(new LoadTool());
        line.setExecutionExceptionHandler((x, cmd, parsed) -> {
            if (x instanceof IllegalArgumentException || x instanceof BenchmarkException) {
                cmd.getErr().println(x.getMessage());
                return 2;
            }
            throw x;
        });
        return line;
    }

    /** {@code --json}, {@code --report}, {@code --threads}. */
    public static final class OutputOptions {
        /**
         * Clients per event loop by default: few enough that a client's socket is read soon after
         * its data arrives, as a browser's would be, not after hundreds of others' reads.
         */
        static final int CLIENTS_PER_LOOP = 64;

        @Option(names = "--json", paramLabel = "FILE", description = "Write every figure as JSON")
        Path json;

        @Option(names = "--report", paramLabel = "FILE.html", description = "Write a self-contained HTML report")
        Path report;

        @Option(names = "--threads", paramLabel = "N", description = "Event-loop threads shared by all clients (default: one per "
                + CLIENTS_PER_LOOP + " clients, at least the number of cores)")
        Integer threads;

        /** The event loops for {@code clients} clients: {@code --threads}, or one per {@value #CLIENTS_PER_LOOP}, at least the cores. */
        int ioThreads(int clients) {
            if (threads != null) {
                return threads;
            }
            return Math.max(Runtime.getRuntime().availableProcessors(), (clients + CLIENTS_PER_LOOP - 1) / CLIENTS_PER_LOOP);
        }

        void write(Object json, List<RunResult> runs, Comparison comparison) throws Exception {
            if (this.json != null) {
                Summary.writeJson(json, this.json);
                System.out.println("JSON written to " + this.json);
            }
            if (report != null) {
                HtmlReport.write(report, runs, comparison);
                System.out.println("Report written to " + report);
            }
        }
    }
}
