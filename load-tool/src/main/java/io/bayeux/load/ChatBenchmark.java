package io.bayeux.load;

import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSessionChannel;
import io.bayeux.client.BayeuxClient;
import io.bayeux.client.ClientConfig;
import io.bayeux.client.ext.AckExtension;
import io.bayeux.client.ext.RecoveryExtension;
import io.bayeux.client.transport.ClientTransport;
import io.bayeux.client.transport.LongPollingTransport;
import io.bayeux.client.transport.WebSocketTransport;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.HdrHistogram.Recorder;

import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * One run of the chat benchmark, client side: {@code clients} {@link BayeuxClient}s on one
 * shared event-loop group join their rooms, then publishers (one random client per batch)
 * send batches of messages to random rooms among their own, at a fixed pace; every delivery
 * is checked against the {@link Ledger} and timed into an HdrHistogram.
 *
 * <p>Each message's data: {@code r} room, {@code q} the room's sequence number, {@code p}
 * publisher, {@code s} the publisher's sequence number, {@code t} send time (µs on this JVM's
 * monotonic clock: publishers and receivers are in the same JVM), {@code w} true for warm-up
 * messages, {@code c} the chat text ({@code --message-size} characters).
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
    private static final Duration STATS_TIMEOUT = Duration.ofSeconds(3);
    private static final Duration QUIET = Duration.ofSeconds(5);
    private static final java.lang.invoke.VarHandle LAST_ARRIVAL;

    static {
        try {
            LAST_ARRIVAL = java.lang.invoke.MethodHandles.lookup().findVarHandle(ChatBenchmark.class, "lastArrival", long.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    private final Scenario scenario;
    private final String label;
    private final Long serverPid;
    private final int ioThreads;
    private final PrintStream out;
    private final boolean progress;

    private final long epoch = System.nanoTime();
    private final Recorder recorder = new Recorder(3);
    private final Histogram measured = new Histogram(3);
    private final LongAdder arrivals = new LongAdder();
    private final LongAdder distinctLive = new LongAdder();
    private final LongAdder measuredDeliveries = new LongAdder();
    private final AtomicLong expectedLive = new AtomicLong();
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong measuredPublished = new AtomicLong();
    private final LongAdder subscribed = new LongAdder();
    private final LongAdder subscribeFailures = new LongAdder();
    private final LongAdder handshakes = new LongAdder();
    private final AtomicInteger cuts = new AtomicInteger();
    private final RecoveryCount recoveries = new RecoveryCount();
    private final java.util.concurrent.atomic.AtomicReference<String> firstSubscribeError = new java.util.concurrent.atomic.AtomicReference<>();
    private final List<RunResult.Sample> timeline = new ArrayList<>();
    private volatile long lastArrival;
    private volatile String phase = "connect";
    private volatile boolean measuring;
    private String drainOutcome = "complete";

    private Ledger ledger;
    private BayeuxClient[] clients;
    private ClientTransport[] transports;
    /** With {@code --cut-for}: the clients' cuttable transports; else null. */
    private NetworkCuts networkCuts;
    /** {@code --stalled-clients}: joined, never read; closed at the end of the run. */
    private final List<StalledClient> stalled = new ArrayList<>();
    /** How many stalled clients joined (they count as connected clients). */
    private int stalledJoined;

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
        this.out = out;
        this.progress = progress;
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
        ClientConfig config = ClientConfig.builder().eventLoopGroup(group).maxPending(100_000).build();
        ledger = new Ledger(scenario.readers(), scenario.rooms(), scenario.roomsPerClient(), scenario.seed(), scenario.selfDelivery());
        clients = new BayeuxClient[scenario.readers()];
        transports = new ClientTransport[scenario.readers()];
        networkCuts = scenario.cutFor() == null ? null : new NetworkCuts(clients, scenario.cutFor());
        BayeuxClient statsClient = null;
        try {
            Long rssBefore = serverPid == null ? null : ProcessFigures.rssBytes(serverPid);
            Long heapBefore = serverPid != null && scenario.idle() ? ProcessFigures.heapAfterGcBytes(serverPid) : null;
            statsClient = newClient(scenario.urls().get(0), config);
            statsClient.handshake();

            sampler.scheduleAtFixedRate(this::sample, 1, 1, TimeUnit.SECONDS);
            long connectStart = System.nanoTime();
            connectAll(config);
            connectStalled();
            double connectSeconds = (System.nanoTime() - connectStart) / 1e9;

            Map<String, Object> statsBefore = serverStats(statsClient);
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
                Thread.sleep(scenario.hold().toMillis());
                double seconds = (System.nanoTime() - holdStart) / 1e9;
                toolFigures = toolFigures(toolCpu, seconds, 0);
                rates = new RunResult.Rates(0, 0, 0, ledger.deliveriesPerMessage(), seconds, 0);
                serverFigures = serverFigures(serverCpu, 0, rssBefore, heapBefore, statsBefore, statsClient);
            } else {
                java.util.concurrent.ScheduledFuture<?> cutter = null;
                if (scenario.cutEvery() != null) {
                    long period = scenario.cutEvery().toMillis();
                    Random random = new Random(scenario.seed() + 2);
                    cutter = sampler.scheduleAtFixedRate(() -> cut(random), period, period, TimeUnit.MILLISECONDS);
                }
                Measure measure = publishAll();
                if (cutter != null) {
                    // No more cuts: the last victims reconnect and get what they missed while draining.
                    cutter.cancel(false);
                }
                phase = "drain";
                drainOutcome = drain();
                long end = Math.max(lastArrival, measure.lastPublish);
                double seconds = Math.max(1e-9, (end - measure.start) / 1e9);
                long deliveries = measuredDeliveries.sum();
                toolFigures = toolFigures(measure.toolCpu, seconds, deliveries);
                rates = new RunResult.Rates(scenario.offeredRate(), measuredPublished.get() / seconds, deliveries / seconds,
                        ledger.deliveriesPerMessage(), seconds, deliveries);
                serverFigures = serverFigures(measure.serverCpu, deliveries, rssBefore, null, statsBefore, statsClient);
                if (!stalled.isEmpty()) {
                    Counts sofar = ledger.counts();
                    boolean everything = "complete".equals(drainOutcome) && sofar.lost() == 0 && sofar.failedPublishes() == 0;
                    Double deliverySeconds = everything ? Math.max(0, lastArrival - measure.firstPublish) / 1e9 : null;
                    stalledFigures = new RunResult.Stalled(stalled.size(), deliverySeconds, heapBeforePublishing, serverFigures.heapAfterGcBytes(),
                            rssBeforePublishing, serverFigures.rssBytes(), stat(statsBefore, "directBytes"), stat(serverFigures.stats(), "directBytes"),
                            stat(serverFigures.stats(), "queued"), stat(serverFigures.stats(), "sessions"));
                }
            }
            closeStalled();
            sampler.shutdownNow();
            sampler.awaitTermination(5, TimeUnit.SECONDS);
            takeInterval();
            if (progress) {
                out.println();
            }
            Counts counts = ledger.counts();
            RunResult.Connect connect = new RunResult.Connect(scenario.clients(), connectedCount() + stalledJoined, subscribeFailures.sum(), connectSeconds, cuts.get(),
                    Math.max(0, handshakes.sum() - clients.length));
            Histogram total;
            synchronized (measured) {
                total = measured.copy();
            }
            return new RunResult(label, describe(scenario), startedAt.toString(), drainOutcome, connect, counts, rates, latency(total),
                    percentiles(total), List.copyOf(timeline()), toolFigures, serverFigures, stalledFigures,
                    scenario.recover() ? recoveries.figures() : null);
        } finally {
            sampler.shutdownNow();
            closeStalled();
            closeAll(statsClient);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        }
    }

    private BayeuxClient newClient(URI url, ClientConfig config) {
        ClientTransport transport = Scenario.WEBSOCKET.equals(scenario.transport())
                ? new WebSocketTransport(config) : new LongPollingTransport(config);
        return new BayeuxClient(url.toString(), config, transport);
    }

    private void connectAll(ClientConfig config) throws InterruptedException {
        long start = System.nanoTime();
        long step = 1_000_000_000L / scenario.rampUpRate();
        for (int c = 0; c < clients.length; c++) {
            LockSupport.parkNanos(start + c * step - System.nanoTime());
            URI url = scenario.urls().get(c % scenario.urls().size());
            ClientTransport transport = Scenario.WEBSOCKET.equals(scenario.transport())
                    ? new WebSocketTransport(config) : new LongPollingTransport(config);
            if (networkCuts != null) {
                transport = networkCuts.wrap(c, transport);
            }
            BayeuxClient client = new BayeuxClient(url.toString(), config, transport);
            clients[c] = client;
            transports[c] = transport;
            if (scenario.ack()) {
                client.addExtension(new AckExtension());
            }
            if (scenario.recover()) {
                RecoveryExtension recovery = new RecoveryExtension();
                recovery.addListener(recoveries);
                client.addExtension(recovery);
            }
            // Every successful handshake after a client's first means its session was lost and made anew.
            client.getChannel(io.bayeux.api.Channel.META_HANDSHAKE).addListener((ClientSessionChannel.MessageListener) (channel, reply) -> {
                if (reply.isSuccessful()) {
                    handshakes.increment();
                }
            });
            client.handshake();
            int receiver = c;
            ClientSessionChannel.MessageListener listener = (channel, message) -> delivered(receiver, message);
            // The subscriptions wait for the handshake and then go in one batch.
            client.startBatch();
            for (int room : ledger.roomsOf(c)) {
                client.getChannel(roomChannel(room)).subscribe(listener, reply -> {
                    if (reply.isSuccessful()) {
                        subscribed.increment();
                    } else {
                        subscribeFailures.increment();
                        firstSubscribeError.compareAndSet(null, String.valueOf(reply.get(Message.ERROR_FIELD)));
                    }
                });
            }
            client.endBatch();
        }
        long wanted = (long) clients.length * scenario.roomsPerClient();
        long deadline = System.nanoTime() + scenario.connectTimeout().toNanos();
        while (subscribed.sum() < wanted || connectedCount() < clients.length) {
            if (System.nanoTime() > deadline) {
                throw new BenchmarkException("Not ready after " + scenario.connectTimeout().toSeconds() + " s: "
                        + connectedCount() + " of " + clients.length + " clients connected, " + subscribed.sum() + " of " + wanted
                        + " subscriptions done, " + subscribeFailures.sum() + " refused"
                        + (firstSubscribeError.get() == null ? "" : " (first: " + firstSubscribeError.get() + ")"));
            }
            Thread.sleep(50);
        }
    }

    /** Joins the stalled clients, each to {@code --rooms-per-client} rooms chosen at random, and leaves them unread. */
    private void connectStalled() {
        Random random = new Random(scenario.seed() + 3);
        int[] all = new int[scenario.rooms()];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        for (int c = 0; c < scenario.stalledClients(); c++) {
            for (int i = 0; i < scenario.roomsPerClient(); i++) {
                int j = i + random.nextInt(all.length - i);
                int t = all[i];
                all[i] = all[j];
                all[j] = t;
            }
            URI url = scenario.urls().get((clients.length + c) % scenario.urls().size());
            try {
                stalled.add(StalledClient.join(url, java.util.Arrays.copyOf(all, scenario.roomsPerClient()), Duration.ofSeconds(10)));
                stalledJoined++;
            } catch (java.io.IOException x) {
                throw new BenchmarkException("Stalled client " + c + " could not join: " + x.getMessage());
            }
        }
    }

    /** Releases the stalled clients: their sockets are closed, so that the server lets their sessions go. */
    private void closeStalled() {
        stalled.forEach(StalledClient::close);
        stalled.clear();
    }

    private static Long stat(Map<String, Object> stats, String name) {
        return stats != null && stats.get(name) instanceof Number n ? n.longValue() : null;
    }

    static String roomChannel(int room) {
        return "/chat/room/" + room;
    }

    private int connectedCount() {
        int n = 0;
        for (BayeuxClient client : clients) {
            if (client != null && client.isConnected()) {
                n++;
            }
        }
        return n;
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
                recorder.recordValue(Math.max(0, (now - epoch) / 1000 - sent));
                measuredDeliveries.increment();
            }
        }
    }

    /** Where the measured phase started, and what the CPU clocks said then. */
    private record Measure(long firstPublish, long start, long lastPublish, long toolCpu, ProcessFigures.CpuSample serverCpu) {
    }

    private Measure publishAll() {
        long warmup = scenario.warmupBatches();
        long total = warmup + scenario.measuredBatches();
        long interval = scenario.batchInterval().toNanos();
        Random random = new Random(scenario.seed() + 1);
        String chat = "x".repeat(scenario.messageSize());
        phase = warmup > 0 ? "warmup" : "measure";
        long start = System.nanoTime();
        long firstPublish = start;
        long measureStart = start;
        long toolCpu = ProcessFigures.ownCpuNanos();
        ProcessFigures.CpuSample serverCpu = serverPid == null ? null : ProcessFigures.cpuSample(serverPid);
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
                measuring = true;
                measureStart = System.nanoTime();
                toolCpu = ProcessFigures.ownCpuNanos();
                serverCpu = serverPid == null ? null : ProcessFigures.cpuSample(serverPid);
            }
            publishBatch(random, chat, i < warmup);
            lastPublish = System.nanoTime();
        }
        return new Measure(firstPublish, measureStart, lastPublish, toolCpu, serverCpu);
    }

    private void publishBatch(Random random, String chat, boolean warm) {
        int publisher = random.nextInt(clients.length);
        if (networkCuts != null) {
            publisher = networkCuts.publisher(publisher);
        }
        BayeuxClient client = clients[publisher];
        int[] rooms = ledger.roomsOf(publisher);
        client.startBatch();
        try {
            for (int b = 0; b < scenario.batchSize(); b++) {
                int room = rooms[random.nextInt(rooms.length)];
                Ledger.Stamp stamp = ledger.stamp(publisher, room);
                expectedLive.addAndGet(ledger.expectedDeliveries(room));
                Map<String, Object> data = new LinkedHashMap<>(8);
                data.put("r", room);
                data.put("q", stamp.roomSeq());
                data.put("p", publisher);
                data.put("s", stamp.pubSeq());
                data.put("t", (System.nanoTime() - epoch) / 1000);
                if (warm) {
                    data.put("w", true);
                }
                data.put("c", chat);
                client.getChannel(roomChannel(room)).publish(data, reply -> {
                    if (!reply.isSuccessful()) {
                        ledger.publishFailed(stamp);
                        expectedLive.addAndGet(-ledger.expectedDeliveries(room));
                    }
                });
                published.incrementAndGet();
                if (!warm) {
                    measuredPublished.incrementAndGet();
                }
            }
        } finally {
            client.endBatch();
        }
    }

    /** After the last batch: waits until everything expected arrived, or nothing arrived for a while. */
    private String drain() {
        // A client cut at the end comes back only when its cut is over: that is not part of the wait.
        return waitForArrivals(scenario.cutFor() == null ? scenario.drainTimeout() : scenario.drainTimeout().plus(scenario.cutFor()));
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
            } else if (System.nanoTime() - lastChange > QUIET.toNanos() && connectedCount() == clients.length) {
                // Nothing for a while and nobody reconnecting: what is missing is not coming.
                return "quiet";
            }
        }
        return "complete";
    }

    private void cut(Random random) {
        int victim = random.nextInt(transports.length);
        if (networkCuts != null) {
            if (networkCuts.cut(victim)) {
                cuts.incrementAndGet();
            }
            return;
        }
        ClientTransport transport = transports[victim];
        if (transport != null) {
            cuts.incrementAndGet();
            transport.abort();
        }
    }

    // --- sampling

    private long lastPublished;
    private long lastArrivals;
    private Histogram recycled;

    /** Scheduler thread, every second. */
    private void sample() {
        try {
            Histogram interval = takeInterval();
            long p = published.get();
            long a = arrivals.sum();
            int connected = connectedCount();
            RunResult.Sample sample = new RunResult.Sample(Math.round((System.nanoTime() - epoch) / 1e8) / 10.0, phase,
                    p - lastPublished, a - lastArrivals, interval.getValueAtPercentile(50), interval.getValueAtPercentile(99), connected);
            lastPublished = p;
            lastArrivals = a;
            synchronized (timeline) {
                timeline.add(sample);
            }
            if (progress) {
                Histogram sofar;
                synchronized (measured) {
                    sofar = measured;
                    out.printf("\r%-8s %5.0fs  clients %d/%d  out %,d msg/s  in %,d msg/s  p50 %s  p99 %s  cuts %d   ",
                            phase, sample.second(), connected, clients.length, sample.published(), sample.received(),
                            Format.micros(sofar.getValueAtPercentile(50)), Format.micros(sofar.getValueAtPercentile(99)), cuts.get());
                }
                out.flush();
            }
        } catch (RuntimeException x) {
            out.println("sampling failed: " + x);
        }
    }

    /** The latencies recorded since the last call, added to the measured total when measuring. */
    private synchronized Histogram takeInterval() {
        Histogram interval = recorder.getIntervalHistogram(recycled);
        recycled = interval;
        if (measuring) {
            synchronized (measured) {
                measured.add(interval);
            }
        }
        return interval;
    }

    private List<RunResult.Sample> timeline() {
        synchronized (timeline) {
            return new ArrayList<>(timeline);
        }
    }

    // --- figures

    private RunResult.Tool toolFigures(long cpuStart, double seconds, long deliveries) {
        double cpu = (ProcessFigures.ownCpuNanos() - cpuStart) / 1e9;
        return new RunResult.Tool(cpu, 100 * cpu / seconds, deliveries == 0 ? null : cpu * 1e6 / deliveries, ioThreads);
    }

    private RunResult.Server serverFigures(ProcessFigures.CpuSample cpuStart, long deliveries, Long rssBefore, Long heapBefore,
                                           Map<String, Object> statsBefore, BayeuxClient statsClient) {
        Map<String, Object> stats = statsBefore == null ? null : serverStats(statsClient);
        if (serverPid == null) {
            return new RunResult.Server(null, null, null, null, null, null, null, null, null, stats, statsBefore);
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
                stats, statsBefore);
    }

    /** What the server's stats service answers, or null when it has none (CometD's server). */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> serverStats(BayeuxClient client) {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        try {
            if (!client.waitFor(Duration.ofSeconds(5), BayeuxClient.State.CONNECTED)) {
                return null;
            }
            client.remoteCall(StatsService.TARGET, Map.of(), reply::complete);
            Message answer = reply.get(STATS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return answer.isSuccessful() && answer.getData() instanceof Map<?, ?> data ? (Map<String, Object>) data : null;
        } catch (TimeoutException | java.util.concurrent.ExecutionException x) {
            return null;
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static RunResult.Latency latency(Histogram h) {
        if (h.getTotalCount() == 0) {
            return new RunResult.Latency(0, 0, 0, 0, 0, 0, 0);
        }
        return new RunResult.Latency(h.getTotalCount(), h.getMean(), h.getValueAtPercentile(50), h.getValueAtPercentile(90),
                h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue());
    }

    private static List<double[]> percentiles(Histogram h) {
        List<double[]> points = new ArrayList<>();
        if (h.getTotalCount() == 0) {
            return points;
        }
        for (HistogramIterationValue v : h.percentiles(5)) {
            double percentile = v.getPercentileLevelIteratedTo();
            points.add(new double[] {percentile, v.getValueIteratedTo()});
            if (percentile >= 100) {
                break;
            }
        }
        return points;
    }

    static Map<String, Object> describe(Scenario s) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("urls", s.urls().stream().map(URI::toString).toList());
        map.put("transport", s.transport());
        map.put("clients", s.clients());
        map.put("rooms", s.rooms());
        map.put("roomsPerClient", s.roomsPerClient());
        map.put("seed", s.seed());
        map.put("rampUpPerSecond", s.rampUpRate());
        map.put("batchSize", s.batchSize());
        map.put("batchIntervalMicros", s.batchInterval().toNanos() / 1000);
        map.put("batches", s.measuredBatches());
        map.put("warmupBatches", s.warmupBatches());
        map.put("messageSize", s.messageSize());
        map.put("offeredPublishedPerSecond", Math.round(s.offeredRate() * 100) / 100.0);
        map.put("selfDelivery", s.selfDelivery());
        map.put("idle", s.idle());
        if (s.idle()) {
            map.put("holdSeconds", s.hold().toMillis() / 1000.0);
        }
        map.put("ack", s.ack());
        if (s.stalledClients() > 0) {
            map.put("stalledClients", s.stalledClients());
        }
        if (s.soak() != null) {
            map.put("soakSeconds", s.soak().toMillis() / 1000.0);
        }
        if (s.cutEvery() != null) {
            map.put("cutEverySeconds", s.cutEvery().toMillis() / 1000.0);
        }
        if (s.cutFor() != null) {
            map.put("cutForSeconds", s.cutFor().toMillis() / 1000.0);
        }
        if (s.recover()) {
            map.put("recover", true);
        }
        return map;
    }

    /** Number of connections cut so far ({@code --cut-every}). */
    public int cuts() {
        return cuts.get();
    }

    private void closeAll(BayeuxClient statsClient) {
        List<BayeuxClient> all = new ArrayList<>();
        if (clients != null) {
            for (BayeuxClient client : clients) {
                if (client != null) {
                    all.add(client);
                }
            }
        }
        if (statsClient != null) {
            all.add(statsClient);
        }
        CountDownLatch done = new CountDownLatch(all.size());
        for (BayeuxClient client : all) {
            try {
                client.disconnect(reply -> done.countDown());
            } catch (RuntimeException x) {
                done.countDown();
            }
        }
        try {
            done.await(15, TimeUnit.SECONDS);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
        all.forEach(BayeuxClient::close);
    }
}
