package io.bayeux.load;

import io.bayeux.api.Message;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.ext.RecoveryExtension;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * One run of the chat benchmark, client side: {@code clients} {@link BayeuxClient}s on one
 * shared event-loop group join their rooms, then batches of messages are published at a fixed
 * pace, each message by a random client to a random room among its own, in a frame of its own
 * (with {@code --one-frame-batches}, one random client sends the whole batch as one Bayeux batch;
 * with {@code --spread}, a batch's messages go one by one over its interval); every delivery is
 * checked against the {@link Ledger} and timed into an HdrHistogram.
 *
 * <p>Each message's data: {@code r} room, {@code q} the room's sequence number, {@code p}
 * publisher, {@code s} the publisher's sequence number, {@code t} send time (µs on this JVM's
 * monotonic clock: publishers and receivers are in the same JVM), {@code w} true for warm-up
 * messages, {@code c} the chat text ({@code --message-size} characters of words, {@link ChatText}).
 *
 * <p>With {@code --cut-every} a random client's connection is cut that often; with
 * {@code --cut-for} it stays cut that long (see {@link CuttableTransport}) and publishes nothing
 * meanwhile. With {@code --recover} every client has a {@link RecoveryExtension}: what it
 * recovers arrives as any message does (the extension drops what it had already), and the
 * run counts the subscriptions recovered, those not recovered by reason, and the messages replayed.
 *
 * <p>Threads: the caller's thread starts the clients and paces the publishers; one scheduler
 * thread samples every second (and cuts connections in soak runs); the event loops receive.
 */
public final class ChatBenchmark {
    private static final Duration QUIET = Duration.ofSeconds(5);
    private static final VarHandle LAST_ARRIVAL;

    static {
        try {
            LAST_ARRIVAL = MethodHandles.lookup().findVarHandle(ChatBenchmark.class, "lastArrival", long.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final Scenario scenario;
    private final String label;
    private final Long serverPid;
    private final int ioThreads;
    private final RunFigures figures;
    private final PrintStream out;
    private final boolean progress;

    private final long epoch = System.nanoTime();
    private final LatencyHistograms latencies = new LatencyHistograms();
    private final LongAdder arrivals = new LongAdder();
    private final LongAdder distinctLive = new LongAdder();
    private final LongAdder measuredDeliveries = new LongAdder();
    private final AtomicLong expectedLive = new AtomicLong();
    private final AtomicLong published = new AtomicLong();
    /** Publishes whose reply has not come yet: the run waits for them, so that every refusal is counted. */
    private final AtomicLong unanswered = new AtomicLong();
    /** How many failed publishes were told with their reason (the first few only). */
    private final AtomicLong toldFailures = new AtomicLong();
    private final AtomicLong measuredPublished = new AtomicLong();
    private final RecoveryCount recoveries = new RecoveryCount();
    private final List<RunResult.Sample> timeline = new ArrayList<>();
    private volatile long lastArrival;
    private volatile String phase = "connect";
    private String drainOutcome = "complete";

    private Ledger ledger;
    /** Set once per run, before anything that reads it starts. */
    private volatile ChatClients clients;
    /** {@code --stalled-clients}: joined, never read; closed at the end of the run. */
    private final StalledClients stalled = new StalledClients();
    /** {@code --cpu-pid}: set before {@link #run()}. */
    private WatchedProcesses watched = new WatchedProcesses(List.of());
    /** {@code --windows}: set before {@link #run()}, or null. */
    private DeliveryWindows windows;
    /** What {@link #watched} used in the last run's measured window; written by the run's thread, read after it. */
    private volatile List<WatchedProcesses.Figure> watchedFigures = List.of();

    /**
     * @param serverPid the server's process id when it runs on this machine (CPU, RSS, heap), or null
     * @param ioThreads the event loops shared by every client
     * @param progress  print a progress line every second
     */
    public ChatBenchmark(Scenario scenario, String label, Long serverPid, int ioThreads, PrintStream out, boolean progress) {
        this.scenario = scenario;
        this.label = label;
        this.serverPid = serverPid;
        this.ioThreads = ioThreads;
        this.figures = new RunFigures(serverPid, ioThreads, scenario.urls());
        this.out = out;
        this.progress = progress;
    }

    /** Also reads the CPU of these processes (other nodes of the cluster, its Redis) over the measured window; before {@link #run()}. */
    void watch(List<Long> pids) {
        watched = new WatchedProcesses(pids);
    }

    /** Also reports the measured phase in windows this long ({@link DeliveryWindows}); null for none. Before {@link #run()}. */
    ChatBenchmark windows(Duration window) {
        windows = window == null ? null : new DeliveryWindows(window);
        return this;
    }

    /** The CPU of the {@link #watch watched} processes over the last run's measured window; empty if none. */
    List<WatchedProcesses.Figure> watchedFigures() {
        return watchedFigures;
    }

    /** After a run: up to {@code limit} of its lost deliveries (see {@link Ledger#lostExamples}). */
    List<String> lostExamples(int limit) {
        return ledger == null ? List.of() : ledger.lostExamples(limit);
    }

    /** Runs the scenario once; throws {@link BenchmarkException} when the clients cannot all connect. */
    public RunResult run() throws InterruptedException {
        Instant startedAt = Instant.now();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(ioThreads, NioIoHandler.newFactory());
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "load-sampler");
            thread.setDaemon(true);
            return thread;
        });
        ClientConfig config = ClientConfig.builder().eventLoopGroup(group).maxPending(100_000)
                .websocketCompression(scenario.offerDeflate()).build();
        ledger = new Ledger(scenario.readers(), scenario.rooms(), scenario.roomsPerClient(), scenario.seed(), scenario.selfDelivery());
        clients = new ChatClients(scenario, ledger, recoveries);
        BayeuxClient statsClient = null;
        try {
            Long rssBefore = serverPid == null ? null : ProcessFigures.rssBytes(serverPid);
            Long heapBefore = serverPid != null && scenario.idle() ? ProcessFigures.heapAfterGcBytes(serverPid) : null;
            statsClient = clients.newClient(scenario.urls().get(0), config);
            statsClient.handshake();

            sampler.scheduleAtFixedRate(this::sample, 1, 1, TimeUnit.SECONDS);
            long connectStart = System.nanoTime();
            clients.connectAll(config, this::delivered);
            stalled.join(scenario, clients.size());
            double connectSeconds = (System.nanoTime() - connectStart) / 1e9;

            Map<String, Object> statsBefore = RunFigures.serverStats(statsClient);
            Long heapBeforePublishing = null;
            Long rssBeforePublishing = null;
            if (!stalled.isEmpty() && serverPid != null) {
                heapBeforePublishing = ProcessFigures.heapAfterGcBytes(serverPid);
                rssBeforePublishing = ProcessFigures.rssBytes(serverPid);
            }
            RunResult.Stalled stalledFigures = null;
            RunResult.Server serverFigures;
            RunResult.Tool toolFigures;
            RunResult.Rates rates;
            if (scenario.idle()) {
                phase = "idle";
                long holdStart = System.nanoTime();
                long toolCpu = ProcessFigures.ownCpuNanos();
                ProcessFigures.CpuSample serverCpu = serverPid == null ? null : ProcessFigures.cpuSample(serverPid);
                SocketFigures.Sample wire = figures.wireSample();
                Thread.sleep(scenario.hold().toMillis());
                double seconds = (System.nanoTime() - holdStart) / 1e9;
                toolFigures = figures.tool(toolCpu, seconds, 0);
                rates = new RunResult.Rates(0, 0, 0, ledger.deliveriesPerMessage(), seconds, 0);
                serverFigures = figures.server(serverCpu, wire, 0, rssBefore, heapBefore, statsBefore, null, statsClient);
            } else {
                ScheduledFuture<?> cutter = null;
                if (scenario.cutEvery() != null) {
                    long period = scenario.cutEvery().toMillis();
                    Random random = new Random(scenario.seed() + 2);
                    cutter = sampler.scheduleAtFixedRate(() -> clients.cut(random), period, period, TimeUnit.MILLISECONDS);
                }
                Measure measure = publishAll(statsClient, statsBefore != null);
                if (cutter != null) {
                    // No more cuts: the last victims reconnect and get what they missed while draining.
                    cutter.cancel(false);
                }
                phase = "drain";
                drainOutcome = drain();
                long end = Math.max(lastArrival, measure.lastPublish);
                double seconds = Math.max(1e-9, (end - measure.start) / 1e9);
                long deliveries = measuredDeliveries.sum();
                watchedFigures = watched.finish(deliveries, measuredPublished.get());
                toolFigures = figures.tool(measure.toolCpu, seconds, deliveries);
                rates = new RunResult.Rates(scenario.offeredRate(), measuredPublished.get() / seconds, deliveries / seconds,
                        ledger.deliveriesPerMessage(), seconds, deliveries);
                serverFigures = figures.server(measure.serverCpu, measure.wire, deliveries, rssBefore, null, statsBefore, measure.stats, statsClient);
                if (!stalled.isEmpty()) {
                    Counts sofar = ledger.counts();
                    boolean everything = "complete".equals(drainOutcome) && sofar.lost() == 0 && sofar.failedPublishes() == 0;
                    Double deliverySeconds = everything ? Math.max(0, lastArrival - measure.firstPublish) / 1e9 : null;
                    stalledFigures = new RunResult.Stalled(stalled.size(), deliverySeconds, heapBeforePublishing, serverFigures.heapAfterGcBytes(),
                            rssBeforePublishing, serverFigures.rssBytes(), RunFigures.stat(statsBefore, "directBytes"), RunFigures.stat(serverFigures.stats(), "directBytes"),
                            RunFigures.stat(serverFigures.stats(), "queued"), RunFigures.stat(serverFigures.stats(), "sessions"));
                }
            }
            stalled.close();
            sampler.shutdownNow();
            sampler.awaitTermination(5, TimeUnit.SECONDS);
            latencies.takeInterval();
            if (progress) {
                out.println();
            }
            Counts counts = ledger.counts();
            RunResult.Connect connect = new RunResult.Connect(scenario.clients(), clients.connectedCount() + stalled.joined(), clients.subscribeFailures(),
                    connectSeconds, clients.cuts(), clients.rehandshakes());
            Histogram total = latencies.measured();
            return new RunResult(label, ScenarioDescription.of(scenario), startedAt.toString(), drainOutcome, connect, counts, rates, LatencyHistograms.latency(total),
                    LatencyHistograms.percentiles(total), List.copyOf(timeline()), toolFigures, serverFigures, stalledFigures,
                    scenario.recover() ? recoveries.figures() : null, windows == null ? null : windows.figures());
        } finally {
            sampler.shutdownNow();
            stalled.close();
            clients.closeAll(statsClient);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
    }

    /** On an event loop: a chat message reached client {@code receiver}. */
    private void delivered(int receiver, Message message) {
        long now = System.nanoTime();
        arrivals.increment();
        // No fence per delivery: it is read once arrivals have stopped, long after this store is visible.
        LAST_ARRIVAL.setOpaque(this, now);
        if (!(message.getData() instanceof Map<?, ?> data) || !(data.get("q") instanceof Number q)) {
            ledger.receiver(receiver).arrived(-1, -1, -1, -1);
            return;
        }
        int room = ((Number) data.get("r")).intValue();
        int publisher = ((Number) data.get("p")).intValue();
        long pubSeq = ((Number) data.get("s")).longValue();
        if (ledger.receiver(receiver).arrived(room, q.longValue(), publisher, pubSeq)) {
            distinctLive.increment();
            if (!Boolean.TRUE.equals(data.get("w"))) {
                long sent = ((Number) data.get("t")).longValue();
                long latency = Math.max(0, (now - epoch) / 1000 - sent);
                latencies.record(latency);
                measuredDeliveries.increment();
                if (windows != null) {
                    windows.delivered(sent, latency);
                }
            }
        }
    }

    /** Where the measured phase started, and what the CPU clocks and the server's connections said then. */
    private record Measure(long firstPublish, long start, long lastPublish, long toolCpu, ProcessFigures.CpuSample serverCpu,
                           SocketFigures.Sample wire, Map<String, Object> stats) {
    }

    private Measure publishAll(BayeuxClient statsClient, boolean stats) {
        long warmup = scenario.warmupBatches();
        long total = warmup + scenario.measuredBatches();
        long interval = scenario.batchInterval().toNanos();
        Random random = new Random(scenario.seed() + 1);
        phase = warmup > 0 ? "warmup" : "measure";
        long start = System.nanoTime();
        long firstPublish = start;
        long measureStart = start;
        long toolCpu = ProcessFigures.ownCpuNanos();
        ProcessFigures.CpuSample serverCpu = serverPid == null ? null : ProcessFigures.cpuSample(serverPid);
        SocketFigures.Sample wire = figures.wireSample();
        Map<String, Object> statsAtStart = stats && warmup == 0 ? RunFigures.serverStats(statsClient) : null;
        watched.start();
        long lastPublish = start;
        for (long i = 0; i < total; i++) {
            LockSupport.parkNanos(start + i * interval - System.nanoTime());
            if (i == warmup) {
                if (warmup > 0) {
                    // Let the warm-up messages arrive before measuring.
                    waitForArrivals(Duration.ofSeconds(5));
                    start = System.nanoTime() - i * interval;
                }
                phase = "measure";
                latencies.startMeasuring();
                if (windows != null) {
                    windows.start((System.nanoTime() - epoch) / 1000, (total - warmup) * interval / 1000);
                }
                measureStart = System.nanoTime();
                toolCpu = ProcessFigures.ownCpuNanos();
                serverCpu = serverPid == null ? null : ProcessFigures.cpuSample(serverPid);
                wire = figures.wireSample();
                if (stats) {
                    statsAtStart = RunFigures.serverStats(statsClient);
                }
                watched.start();
            }
            publishBatch(random, i < warmup, start + i * interval, interval);
            lastPublish = System.nanoTime();
        }
        return new Measure(firstPublish, measureStart, lastPublish, toolCpu, serverCpu, wire, statsAtStart);
    }

    /** Publishes one batch due at {@code due} (nanoTime), whose interval is {@code interval} ns. */
    private void publishBatch(Random random, boolean warm, long due, long interval) {
        if (scenario.oneFrameBatches()) {
            int publisher = clients.pickPublisher(random);
            BayeuxClient client = clients.get(publisher);
            client.startBatch();
            try {
                for (int b = 0; b < scenario.batchSize(); b++) {
                    publish(random, warm, publisher);
                }
            } finally {
                client.endBatch();
            }
            return;
        }
        for (int b = 0; b < scenario.batchSize(); b++) {
            if (scenario.spread() && b > 0) {
                LockSupport.parkNanos(due + b * interval / scenario.batchSize() - System.nanoTime());
            }
            publish(random, warm, clients.pickPublisher(random));
        }
    }

    /** Client {@code publisher} publishes one message to a random room of its own (in its batch, if it has one open). */
    private void publish(Random random, boolean warm, int publisher) {
        int[] rooms = ledger.roomsOf(publisher);
        int room = rooms[random.nextInt(rooms.length)];
        Ledger.Stamp stamp = ledger.stamp(publisher, room);
        expectedLive.addAndGet(ledger.expectedDeliveries(room));
        long sent = (System.nanoTime() - epoch) / 1000;
        if (windows != null && !warm) {
            windows.expect(sent, ledger.expectedDeliveries(room));
        }
        Map<String, Object> data = new LinkedHashMap<>(8);
        data.put("r", room);
        data.put("q", stamp.roomSeq());
        data.put("p", publisher);
        data.put("s", stamp.pubSeq());
        data.put("t", sent);
        if (warm) {
            data.put("w", true);
        }
        data.put("c", ChatText.of(scenario.messageSize(), random));
        unanswered.incrementAndGet();
        clients.get(publisher).getChannel(ChatClients.roomChannel(room)).publish(data, reply -> {
            unanswered.decrementAndGet();
            if (!reply.isSuccessful()) {
                if (toldFailures.getAndIncrement() < 3) {
                    out.println("publish of " + stamp + " failed: " + reply);
                }
                ledger.publishFailed(stamp);
                expectedLive.addAndGet(-ledger.expectedDeliveries(room));
                if (windows != null && !warm) {
                    windows.expect(sent, -ledger.expectedDeliveries(room));
                }
            }
        });
        published.incrementAndGet();
        if (!warm) {
            measuredPublished.incrementAndGet();
        }
    }

    /** After the last batch: waits until everything expected arrived, or nothing arrived for a while. */
    private String drain() {
        // A client cut at the end comes back only when its cut is over: that is not part of the wait.
        Duration timeout = scenario.cutFor() == null ? scenario.drainTimeout() : scenario.drainTimeout().plus(scenario.cutFor());
        long deadline = System.nanoTime() + timeout.toNanos();
        String outcome = waitForArrivals(timeout);
        // A refused publish whose room expects no delivery holds up no arrival: wait for its reply too.
        while (unanswered.get() > 0 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        // A client cut after the last publish missed nothing, so the arrivals do not wait for it:
        // the run ends once it is back, so that the count of connected clients is the final one.
        while (scenario.cutEvery() != null && clients.connectedCount() < clients.size() && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        return outcome;
    }

    /** @return {@code complete}, {@code quiet} (nothing arrived for a while) or {@code timeout} (still arriving) */
    private String waitForArrivals(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long lastCount = arrivals.sum();
        long lastChange = System.nanoTime();
        while (distinctLive.sum() < expectedLive.get()) {
            if (System.nanoTime() >= deadline) {
                return "timeout";
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            long count = arrivals.sum();
            if (count != lastCount) {
                lastCount = count;
                lastChange = System.nanoTime();
            } else if (System.nanoTime() - lastChange > QUIET.toNanos() && clients.connectedCount() == clients.size()) {
                // Nothing for a while and nobody reconnecting: what is missing is not coming.
                return "quiet";
            }
        }
        return "complete";
    }

    // --- sampling

    private long lastPublished;
    private long lastArrivals;

    /** Scheduler thread, every second. */
    private void sample() {
        try {
            Histogram interval = latencies.takeInterval();
            long p = published.get();
            long a = arrivals.sum();
            int connected = clients.connectedCount();
            RunResult.Sample sample = new RunResult.Sample(Math.round((System.nanoTime() - epoch) / 1e8) / 10.0, phase,
                    p - lastPublished, a - lastArrivals, interval.getValueAtPercentile(50), interval.getValueAtPercentile(99), connected);
            lastPublished = p;
            lastArrivals = a;
            synchronized (timeline) {
                timeline.add(sample);
            }
            if (progress) {
                out.printf("\r%-8s %5.0fs  clients %d/%d  out %,d msg/s  in %,d msg/s  p50 %s  p99 %s  cuts %d   ",
                        phase, sample.second(), connected, clients.size(), sample.published(), sample.received(),
                        Format.micros(latencies.measuredAt(50)), Format.micros(latencies.measuredAt(99)), clients.cuts());
                out.flush();
            }
        } catch (RuntimeException x) {
            out.println("sampling failed: " + x);
        }
    }

    private List<RunResult.Sample> timeline() {
        synchronized (timeline) {
            return new ArrayList<>(timeline);
        }
    }

    /** Number of connections cut so far ({@code --cut-every}). */
    public int cuts() {
        ChatClients current = clients;
        return current == null ? 0 : current.cuts();
    }
}
