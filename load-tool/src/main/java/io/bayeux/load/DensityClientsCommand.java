package io.bayeux.load;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code bayeux-load density-clients} (hidden): one child process of the density mode's
 * {@code --client-processes}, holding its share of the idle clients ({@link IdleClients},
 * process {@code --process} of {@code --processes}) and driven by its parent
 * ({@link ClientProcesses}) over its standard input and output, one line each way:
 *
 * <pre>
 * open TOTAL MILLIS  -> opened NANOS READY      (this process's TOTAL clients ready, or "error ...")
 * expect ID          -> ok
 * await MILLIS       -> arrived ARRIVALS LAST_NANOS   (LAST_NANOS -1 when not all within MILLIS)
 * leave MILLIS       -> left FORCED
 * sources            -> sources ADDRESS=COUNT ...
 * quit (or the end of the input: the parent went) -> the process exits
 * </pre>
 *
 * Each answer starts with {@value #ANSWER}: the parent skips other lines that the JVM may
 * write to the standard output ({@code -Xlog}, JFR's start), and passes them to its standard
 * error. The application's logs go to the standard error.
 */
@Command(name = "density-clients", hidden = true, mixinStandardHelpOptions = true, description = "A child process of density --client-processes: driven over stdin/stdout.")
final class DensityClientsCommand implements Callable<Integer> {
    /** What starts every answer: other lines on the standard output (the JVM's own, of {@code -Xlog} or JFR) are not answers. */
    static final String ANSWER = "@density ";

    @Option(names = "--url", required = true)
    URI url;

    @Option(names = "--process", required = true)
    int process;

    @Option(names = "--processes", required = true)
    int processes;

    @Option(names = "--source-addresses")
    int sourceAddresses = 4;

    @Option(names = "--rooms")
    int rooms = 1000;

    @Option(names = "--rooms-per-client")
    int roomsPerClient = 10;

    @Option(names = "--no-client-compression")
    boolean noClientCompression;

    @Option(names = "--concurrency")
    int concurrency = 500;

    @Option(names = "--threads")
    int threads = Runtime.getRuntime().availableProcessors();

    @Option(names = "--normal-scheduling")
    boolean normalScheduling;

    @Option(names = "--connect-timeout-millis")
    long connectTimeoutMillis = 120_000;

    @Override
    public Integer call() throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (IdleClients clients = new IdleClients(url, DensityCommand.sourceAddresses(sourceAddresses), !noClientCompression, rooms,
                roomsPerClient, concurrency, threads, !normalScheduling, Duration.ofMillis(connectTimeoutMillis), process, processes)) {
            String line;
            while ((line = in.readLine()) != null && !line.equals("quit")) {
                out.println(ANSWER + answer(clients, line.split(" ")));
            }
        }
        return 0;
    }

    private static String answer(IdleClients clients, String[] command) throws InterruptedException {
        try {
            return switch (command[0]) {
                case "open" -> {
                    long nanos = clients.open(Integer.parseInt(command[1]), Duration.ofMillis(Long.parseLong(command[2])));
                    yield "opened " + nanos + " " + clients.ready();
                }
                case "expect" -> {
                    clients.expectBroadcast(command[1]);
                    yield "ok";
                }
                case "await" -> {
                    long last = clients.awaitBroadcast(Duration.ofMillis(Long.parseLong(command[1])));
                    yield "arrived " + clients.arrivals() + " " + last;
                }
                case "leave" -> "left " + clients.leaveAll(Duration.ofMillis(Long.parseLong(command[1])));
                case "sources" -> "sources " + clients.perSourceAddress().entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
                default -> "error unknown command " + String.join(" ", command);
            };
        } catch (BenchmarkException | IllegalArgumentException x) {
            return "error " + String.valueOf(x.getMessage()).replace('\n', ' ');
        }
    }

    /** Parses a {@code sources} answer into counts by address. */
    static void addSources(String answer, Map<String, Integer> into) {
        for (String pair : answer.substring("sources".length()).trim().split(" ")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                into.merge(pair.substring(0, eq), Integer.parseInt(pair.substring(eq + 1)), Integer::sum);
            }
        }
    }
}
