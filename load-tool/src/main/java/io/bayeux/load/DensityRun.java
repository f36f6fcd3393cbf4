package io.bayeux.load;

import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.transport.WebSocketTransport;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * One density measurement against a running server: after a warm-up round of a few clients (so
 * that the baseline is a server that has loaded its classes, not a never-used one), idle
 * WebSocket clients ({@link IdleClients}) opened step by step up to the highest count, the server's memory read at every step (after a
 * full GC), the CPU it spends holding them all idle, one broadcast to all of them (or several, one after another), then all
 * leave (the clients in this process or, with {@code clientProcesses}, spread over child
 * processes: {@link ClientProcesses}); the next rounds open them all at once, broadcast and leave again. After each leave it
 * waits, up to the settle time, for the server's sessions, channels and heap after GC to return
 * to the empty server's.
 *
 * <p>Not thread-safe: one run, on the caller's thread.
 */
final class DensityRun {
    /** What the run is asked to do. */
    record Settings(URI url, Long serverPid, List<Integer> steps, List<InetAddress> sourceAddresses, boolean offerDeflate,
                    int rooms, int roomsPerClient, int concurrency, int rounds, Duration hold, Duration settle,
                    long heapToleranceBytes, Duration connectTimeout, int ioThreads, boolean batchScheduling, int warmup, int clientProcesses,
                    int broadcasts) {
        Settings {
            if (broadcasts < 1) {
                throw new IllegalArgumentException("--broadcasts must be 1 or more: " + broadcasts);
            }
            if (clientProcesses < 1) {
                throw new IllegalArgumentException("--client-processes must be 1 or more: " + clientProcesses);
            }
            if (warmup < 0) {
                throw new IllegalArgumentException("--warmup must be 0 or more: " + warmup);
            }
            steps = List.copyOf(steps);
            if (steps.isEmpty()) {
                throw new IllegalArgumentException("--steps needs at least one count");
            }
            for (int i = 0; i < steps.size(); i++) {
                if (steps.get(i) < 1 || (i > 0 && steps.get(i) <= steps.get(i - 1))) {
                    throw new IllegalArgumentException("--steps must be positive and increasing: " + steps);
                }
            }
            if (rounds < 1) {
                throw new IllegalArgumentException("--rounds must be positive: " + rounds);
            }
            sourceAddresses = List.copyOf(sourceAddresses);
        }

        int top() {
            return steps.get(steps.size() - 1);
        }
    }

    /** The figures at one step: the server's sample, per connection over the empty server, and the slope from the step before. */
    record Step(int clients, double connectSeconds, ServerSample sample, ServerSample.PerConnection perConnection,
                ServerSample.PerConnection slope) {
    }

    /**
     * One connect-all / leave-all round.
     *
     * @param connectSeconds  the time to connect and subscribe all (the first round: the steps' times added)
     * @param broadcastMillis from publishing one message on the broadcast channel to its arrival at the last client; null when not all got it
     * @param serverBroadcastMillis the server's part of it: from the publish read off its connection to the flush of the last frame
     *                        carrying it, as the server's stats service tells (a server started with {@code --broadcast-timing});
     *                        null when it does not
     * @param laterBroadcastsMillis the same for each broadcast after the first (see {@link Settings#broadcasts()}), one after
     *                        the other; null for one that did not reach every client
     * @param settleSeconds   from the last connection closed until sessions and heap after GC were back to the empty server's; null when not within the settle time
     * @param after           the server once settled (or at the end of the settle time)
     */
    record Round(int round, int clients, double connectSeconds, Double broadcastMillis, Double serverBroadcastMillis, int broadcastArrivals,
                 List<Double> laterBroadcastsMillis, Double settleSeconds, ServerSample after) {
        /** Whether every broadcast of the round reached every client. */
        boolean everyBroadcastArrived() {
            return broadcastMillis != null && !laterBroadcastsMillis.contains(null);
        }
    }

    /**
     * Everything the run measured.
     *
     * @param neverUsed the server before any client of the run
     * @param warmup    the clients of the warm-up round, 0 for none
     * @param empty     the server the figures are taken over: after the warm-up round, once its sessions and channels are
     *                  gone (the never-used server without one)
     * @param clientScheduling {@link #BATCH} or {@link #NORMAL}: the policy the clients' event loops were asked to run in
     */
    record Result(String url, Long serverPid, List<String> sourceAddresses, Map<String, Integer> clientsPerSourceAddress,
                  boolean deflateOffered, int roomsPerClient, String clientScheduling, ServerSample neverUsed, int warmup,
                  ServerSample empty, List<Step> steps, Double idleCpuPercentOfOneCore, List<Round> rounds) {
    }

    /** {@link Result#clientScheduling()}: the clients' event loops in {@code SCHED_BATCH} ({@link BatchScheduling}), or not. */
    static final String BATCH = "batch";
    static final String NORMAL = "normal";
    private static final Duration BROADCAST_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration LEAVE_TIMEOUT = Duration.ofSeconds(30);
    private static final long SETTLE_POLL_MILLIS = 250;

    private final Settings settings;
    private final PrintStream out;

    DensityRun(Settings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
    }

    Result run() throws InterruptedException, IOException {
        EventLoopGroup statsGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        ClientConfig statsConfig = ClientConfig.builder().eventLoopGroup(statsGroup).websocketCompression(false).build();
        BayeuxClient stats = new BayeuxClient(settings.url().toString(), statsConfig, new WebSocketTransport(statsConfig));
        try {
            stats.handshake();
            // Before any client process starts: a JVM starting competes with the first stats call.
            ServerSample neverUsed = sample(stats);
            out.printf(Locale.ROOT, "clients' event loops: %s%n", settings.batchScheduling()
                    ? "SCHED_BATCH, so that they do not preempt the server on its cores (--normal-client-scheduling for not)"
                    : "normal scheduling");
            out.printf(Locale.ROOT, "never-used server: %s%n", describe(neverUsed));
            return measure(stats, neverUsed);
        } finally {
            stats.disconnect(reply -> { });
            stats.close();
            statsGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
    }

    /** The warm-up, the steps and the rounds, with the clients open. */
    private Result measure(BayeuxClient stats, ServerSample neverUsed) throws InterruptedException, IOException {
        try (DensityClients clients = clients()) {
            ServerSample empty = settings.warmup() == 0 ? neverUsed : warmUp(clients, stats, neverUsed);
            List<Step> steps = new ArrayList<>();
            List<Round> rounds = new ArrayList<>();
            Double idleCpu = null;
            for (int round = 1; round <= settings.rounds(); round++) {
                double connectSeconds = 0;
                if (round == 1) {
                    ServerSample previous = empty;
                    int previousCount = 0;
                    for (int count : settings.steps()) {
                        double seconds = clients.open(count, settings.connectTimeout()) / 1e9;
                        connectSeconds += seconds;
                        ServerSample now = sample(stats);
                        Step step = new Step(count, connectSeconds, now, now.perConnectionOver(empty, count),
                                now.perConnectionOver(previous, count - previousCount));
                        steps.add(step);
                        out.printf(Locale.ROOT, "%,d clients (+%,d in %.2f s): %s; per connection %s; slope %s%n", count,
                                count - previousCount, seconds, describe(now), describe(step.perConnection()), describe(step.slope()));
                        previous = now;
                        previousCount = count;
                    }
                    idleCpu = idleCpu(clients);
                } else {
                    connectSeconds = clients.open(settings.top(), settings.connectTimeout()) / 1e9;
                }
                rounds.add(broadcastAndLeave(round, clients, connectSeconds, stats, empty));
            }
            return new Result(settings.url().toString(), settings.serverPid(),
                    settings.sourceAddresses().stream().map(InetAddress::getHostAddress).toList(), clients.perSourceAddress(),
                    settings.offerDeflate(), settings.roomsPerClient(), settings.batchScheduling() ? BATCH : NORMAL, neverUsed,
                    settings.warmup(), empty, steps, idleCpu, rounds);
        }
    }

    /** The clients in this process, or spread over {@code clientProcesses} (this one and children). */
    private DensityClients clients() throws IOException {
        int processes = settings.clientProcesses();
        IdleClients local = new IdleClients(settings.url(), settings.sourceAddresses(), settings.offerDeflate(), settings.rooms(),
                settings.roomsPerClient(), settings.concurrency(), settings.ioThreads(), settings.batchScheduling(), settings.connectTimeout(), 0,
                processes);
        return processes == 1 ? local : new ClientProcesses(local, processes, ClientProcesses.childArguments(settings));
    }

    /**
     * One round of {@code warmup} clients (connect, subscribe, a broadcast, leave) so that the
     * server's classes are loaded and its paths run before the baseline is taken; waits, up to
     * the settle time, for their sessions and channels to go, and returns the server then.
     */
    private ServerSample warmUp(DensityClients clients, BayeuxClient stats, ServerSample neverUsed) throws InterruptedException {
        clients.open(settings.warmup(), settings.connectTimeout());
        clients.expectBroadcast("density-warmup");
        stats.getChannel(IdleClients.BROADCAST_CHANNEL).publish(Map.of("id", "density-warmup"));
        clients.awaitBroadcast(BROADCAST_TIMEOUT);
        clients.leaveAll(LEAVE_TIMEOUT);
        long deadline = System.nanoTime() + settings.settle().toNanos();
        ServerSample now = sample(stats);
        while (!(same(now.sessions(), neverUsed.sessions()) && same(now.channels(), neverUsed.channels())) && System.nanoTime() < deadline) {
            Thread.sleep(SETTLE_POLL_MILLIS);
            now = sample(stats);
        }
        out.printf(Locale.ROOT, "empty server after a warm-up round of %,d clients: %s%n", settings.warmup(), describe(now));
        return now;
    }

    /** Whether a count is the empty server's, where both were read (a stats call may time out on a busy machine). */
    private static boolean same(Long now, Long empty) {
        return now == null || empty == null || now.equals(empty);
    }

    /** The server's CPU, in % of one core, while every client is connected and idle for the hold time; null without its pid. */
    private Double idleCpu(DensityClients clients) throws InterruptedException {
        if (settings.serverPid() == null || settings.hold().isZero()) {
            return null;
        }
        Long before = ProcessFigures.cpuNanos(settings.serverPid());
        long start = System.nanoTime();
        Thread.sleep(settings.hold().toMillis());
        Long after = ProcessFigures.cpuNanos(settings.serverPid());
        if (before == null || after == null) {
            return null;
        }
        double percent = 100.0 * (after - before) / (System.nanoTime() - start);
        out.printf(Locale.ROOT, "server CPU holding %,d idle clients for %d s: %.1f %% of a core%n", clients.ready(),
                settings.hold().toSeconds(), percent);
        return percent;
    }

    private Round broadcastAndLeave(int round, DensityClients clients, double connectSeconds, BayeuxClient stats, ServerSample empty)
            throws InterruptedException {
        String id = "density-" + round;
        Double broadcastMillis = broadcast(clients, stats, id);
        Double serverMillis = broadcastMillis == null ? null : serverBroadcastMillis(RunFigures.serverStats(stats));
        int arrivals = clients.arrivals();
        List<Double> later = new ArrayList<>();
        for (int i = 2; i <= settings.broadcasts(); i++) {
            later.add(broadcast(clients, stats, id + "-" + i));
        }
        int count = clients.ready();
        int forced = clients.leaveAll(LEAVE_TIMEOUT);
        long left = System.nanoTime();
        ServerSample after;
        Double settleSeconds = null;
        long deadline = left + settings.settle().toNanos();
        do {
            after = sample(stats);
            if (settled(after, empty)) {
                settleSeconds = (System.nanoTime() - left) / 1e9;
                break;
            }
            Thread.sleep(SETTLE_POLL_MILLIS);
        } while (System.nanoTime() < deadline);
        out.printf(Locale.ROOT, "round %d: %,d clients connected and subscribed in %.2f s; broadcast reached %,d of them, the last after %s;"
                        + " all left%s; %s; server %s%n", round, count, connectSeconds, arrivals,
                broadcastMillis == null ? "(not all within " + BROADCAST_TIMEOUT.toSeconds() + " s)" : String.format(Locale.ROOT, "%.1f ms", broadcastMillis)
                        + (serverMillis == null ? "" : String.format(Locale.ROOT, " (the server's part %.1f ms, from the publish read to the last"
                        + " frame flushed; the rest %.1f ms, the clients reading)", serverMillis, broadcastMillis - serverMillis))
                        + describeLater(later),
                forced == 0 ? "" : " (" + forced + " closed by force)",
                settleSeconds == null ? "NOT back to the empty server's within " + settings.settle().toSeconds() + " s"
                        : String.format(Locale.ROOT, "back to the empty server's in %.1f s", settleSeconds), describe(after));
        return new Round(round, count, connectSeconds, broadcastMillis, serverMillis, arrivals, later, settleSeconds, after);
    }

    /** Publishes one message on the broadcast channel; returns the time to its arrival at the last client, null when not all got it. */
    private static Double broadcast(DensityClients clients, BayeuxClient stats, String id) throws InterruptedException {
        clients.expectBroadcast(id);
        long published = System.nanoTime();
        stats.getChannel(IdleClients.BROADCAST_CHANNEL).publish(Map.of("id", id));
        long last = clients.awaitBroadcast(BROADCAST_TIMEOUT);
        return last < 0 ? null : (last - published) / 1e6;
    }

    /** The broadcasts after a round's first: their median, fastest and slowest, and how many did not reach every client. */
    static String describeLater(List<Double> later) {
        if (later.isEmpty()) {
            return "";
        }
        List<Double> arrived = later.stream().filter(Objects::nonNull).sorted().toList();
        int missed = later.size() - arrived.size();
        StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "; %d more, one after another", later.size()));
        if (!arrived.isEmpty()) {
            text.append(String.format(Locale.ROOT, ": median %.1f ms, fastest %.1f ms, slowest %.1f ms", median(arrived),
                    arrived.get(0), arrived.get(arrived.size() - 1)));
        }
        if (missed > 0) {
            text.append(String.format(Locale.ROOT, "; %d did NOT reach every client within %d s", missed, BROADCAST_TIMEOUT.toSeconds()));
        }
        return text.toString();
    }

    /** The middle value, or the mean of the two middle ones; {@code values} not empty. */
    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /**
     * The server's part of the last broadcast, from its stats ({@code deliveryNewestArrivalNanos},
     * {@code deliveryLastFlushNanos}, both of the server's clock); null when it does not tell.
     */
    static Double serverBroadcastMillis(Map<String, Object> stats) {
        Long arrival = RunFigures.stat(stats, "deliveryNewestArrivalNanos");
        Long flush = RunFigures.stat(stats, "deliveryLastFlushNanos");
        return arrival == null || flush == null || arrival == 0 || flush < arrival ? null : (flush - arrival) / 1e6;
    }

    /** Sessions and channels as many as the empty server's and heap after GC within the tolerance of it (where read). */
    private boolean settled(ServerSample now, ServerSample empty) {
        boolean sessions = same(now.sessions(), empty.sessions()) && same(now.channels(), empty.channels());
        boolean heap = now.heapAfterGcBytes() == null || empty.heapAfterGcBytes() == null
                || now.heapAfterGcBytes() <= empty.heapAfterGcBytes() + settings.heapToleranceBytes();
        return sessions && heap;
    }

    /** The server now; its stats are asked twice when the first call gets no answer in time (a busy machine). */
    private ServerSample sample(BayeuxClient stats) {
        Map<String, Object> figures = RunFigures.serverStats(stats);
        return ServerSample.take(settings.serverPid(), figures != null ? figures : RunFigures.serverStats(stats));
    }

    static String describe(ServerSample s) {
        return String.format(Locale.ROOT, "sessions %s, channels %s, heap after GC %s, direct %s, RSS %s, kernel TCP memory %s",
                s.sessions() == null ? "-" : s.sessions(), s.channels() == null ? "-" : s.channels(), mib(s.heapAfterGcBytes()), mib(s.directBytes()), mib(s.rssBytes()),
                mib(s.socketMemoryBytes()));
    }

    static String describe(ServerSample.PerConnection p) {
        return String.format(Locale.ROOT, "heap %s, direct %s, RSS %s, kernel %s KiB", kib(p.heapKiB()), kib(p.directKiB()),
                kib(p.rssKiB()), kib(p.socketKiB()));
    }

    private static String mib(Long bytes) {
        return bytes == null ? "-" : String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }

    private static String kib(Double value) {
        return value == null ? "-" : String.format(Locale.ROOT, "%.2f", value);
    }
}
