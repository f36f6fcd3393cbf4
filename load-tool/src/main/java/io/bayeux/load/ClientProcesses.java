package io.bayeux.load;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The density mode's idle clients spread over {@code processes} processes, so that the client
 * side is never the limit (each process has its own open-file limit, event loops and heap):
 * this one holds process 0's share in an {@link IdleClients}, and starts {@code processes - 1}
 * child JVMs of the load tool ({@link DensityClientsCommand}, the same Java, class path and
 * memory options), each holding its share, driven over its standard input and output. Client
 * {@code i} of a step lives in process {@code i mod processes}, with the rooms and source address
 * it would have in one process. Every command goes to all processes at once, then the answers
 * are read; the figures are summed (counts) or the latest taken (times: {@link System#nanoTime}
 * is the machine's monotonic clock on Linux, the same in every process).
 *
 * <p>Not thread-safe: called by the run's thread only. A child answers every command within the
 * timeout the command carries (its own operations are bounded); one that dies ends its output,
 * which fails the command. {@link #close} asks each child to quit and stops by its pid one that
 * has not within 10 s.
 */
final class ClientProcesses implements DensityClients {
    private static final long QUIT_WAIT_SECONDS = 10;

    private final IdleClients local;
    private final int processes;
    private final List<Child> children = new ArrayList<>();
    private int ready;
    private int arrivals;

    /** {@code childArguments}: the options of {@link DensityClientsCommand} but {@code --process}. */
    ClientProcesses(IdleClients local, int processes, List<String> childArguments) throws IOException {
        if (processes < 2) {
            throw new IllegalArgumentException("--client-processes must be 2 or more here: " + processes);
        }
        this.local = local;
        this.processes = processes;
        try {
            for (int process = 1; process < processes; process++) {
                children.add(Child.start(process, processes, childArguments));
            }
        } catch (IOException | RuntimeException x) {
            close();
            throw x;
        }
    }

    /** The arguments a child needs from the run's settings. */
    static List<String> childArguments(DensityRun.Settings settings) {
        List<String> args = new ArrayList<>(List.of("--url", settings.url().toString(),
                "--source-addresses", Integer.toString(settings.sourceAddresses().size()),
                "--rooms", Integer.toString(settings.rooms()), "--rooms-per-client", Integer.toString(settings.roomsPerClient()),
                "--concurrency", Integer.toString(settings.concurrency()), "--threads", Integer.toString(settings.ioThreads()),
                "--connect-timeout-millis", Long.toString(settings.connectTimeout().toMillis())));
        if (!settings.offerDeflate()) {
            args.add("--no-client-compression");
        }
        if (!settings.batchScheduling()) {
            args.add("--normal-scheduling");
        }
        return args;
    }

    /** How many of {@code total} clients, numbered from 0, fall to {@code process}: those whose number mod the processes is it. */
    static int share(int total, int process, int processes) {
        return Math.max(0, (total - process + processes - 1) / processes);
    }

    @Override
    public long open(int total, Duration timeout) throws InterruptedException {
        for (Child child : children) {
            child.send("open " + share(total, child.process, processes) + " " + timeout.toMillis());
        }
        long nanos = local.open(share(total, 0, processes), timeout);
        int sum = local.ready();
        for (Child child : children) {
            String[] answer = child.answer("opened");
            nanos = Math.max(nanos, Long.parseLong(answer[1]));
            sum += Integer.parseInt(answer[2]);
        }
        ready = sum;
        return nanos;
    }

    @Override
    public void expectBroadcast(String id) throws InterruptedException {
        for (Child child : children) {
            child.send("expect " + id);
        }
        local.expectBroadcast(id);
        for (Child child : children) {
            child.answer("ok");
        }
    }

    @Override
    public long awaitBroadcast(Duration timeout) throws InterruptedException {
        for (Child child : children) {
            child.send("await " + timeout.toMillis());
        }
        long last = local.awaitBroadcast(timeout);
        int sum = local.arrivals();
        for (Child child : children) {
            String[] answer = child.answer("arrived");
            sum += Integer.parseInt(answer[1]);
            long theirs = Long.parseLong(answer[2]);
            last = last < 0 || theirs < 0 ? -1 : Math.max(last, theirs);
        }
        arrivals = sum;
        return last;
    }

    @Override
    public int arrivals() {
        return arrivals;
    }

    @Override
    public int leaveAll(Duration timeout) throws InterruptedException {
        for (Child child : children) {
            child.send("leave " + timeout.toMillis());
        }
        int forced = local.leaveAll(timeout);
        for (Child child : children) {
            forced += Integer.parseInt(child.answer("left")[1]);
        }
        ready = 0;
        return forced;
    }

    @Override
    public int ready() {
        return ready;
    }

    @Override
    public Map<String, Integer> perSourceAddress() {
        Map<String, Integer> counts = new TreeMap<>(local.perSourceAddress());
        for (Child child : children) {
            child.send("sources");
        }
        for (Child child : children) {
            DensityClientsCommand.addSources(String.join(" ", child.answer("sources")), counts);
        }
        return counts;
    }

    @Override
    public void close() {
        for (Child child : children) {
            child.quit();
        }
        for (Child child : children) {
            child.awaitOrStop();
        }
        local.close();
    }

    @Override
    public String toString() {
        return "ClientProcesses[" + processes + " processes, " + ready + " ready, children " + children + "]";
    }

    /** One child process and its two pipes. */
    private static final class Child {
        final int process;
        final Process os;
        final PrintStream in;
        final BufferedReader out;

        private Child(int process, Process os) {
            this.process = process;
            this.os = os;
            this.in = new PrintStream(os.getOutputStream(), true, StandardCharsets.UTF_8);
            this.out = new BufferedReader(new InputStreamReader(os.getInputStream(), StandardCharsets.UTF_8));
        }

        static Child start(int process, int processes, List<String> arguments) throws IOException {
            List<String> command = new ArrayList<>();
            command.add(ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java"));
            for (String option : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                // Memory, system properties and JVM flags as this process has them; no agents, debuggers or
                // recordings (each would write to this process's file).
                if ((option.startsWith("-X") || option.startsWith("-D") || option.startsWith("--enable-native-access"))
                        && !option.startsWith("-XX:StartFlightRecording") && !option.startsWith("-XX:FlightRecorderOptions")) {
                    command.add(option);
                }
            }
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), LoadTool.class.getName(), "density-clients",
                    "--process", Integer.toString(process), "--processes", Integer.toString(processes)));
            command.addAll(arguments);
            Process os = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            return new Child(process, os);
        }

        void send(String line) {
            in.println(line);
        }

        /** The next answer, split at spaces; a BenchmarkException when it is an error, another answer or none (the child died). */
        String[] answer(String expected) {
            String line;
            try {
                while ((line = out.readLine()) != null && !line.startsWith(DensityClientsCommand.ANSWER)) {
                    System.err.println("client process " + process + ": " + line);
                }
            } catch (IOException x) {
                throw new BenchmarkException("Client process " + process + " (pid " + os.pid() + "): " + x);
            }
            if (line == null) {
                throw new BenchmarkException("Client process " + process + " (pid " + os.pid() + ") ended");
            }
            line = line.substring(DensityClientsCommand.ANSWER.length());
            if (!line.equals(expected) && !line.startsWith(expected + " ")) {
                throw new BenchmarkException("Client process " + process + ": " + line);
            }
            return line.split(" ");
        }

        void quit() {
            in.println("quit");
            in.close();
        }

        void awaitOrStop() {
            try {
                if (!os.waitFor(QUIT_WAIT_SECONDS, TimeUnit.SECONDS)) {
                    os.destroyForcibly().waitFor(QUIT_WAIT_SECONDS, TimeUnit.SECONDS);
                }
            } catch (InterruptedException x) {
                os.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public String toString() {
            return "process " + process + " (pid " + os.pid() + ")";
        }
    }
}
