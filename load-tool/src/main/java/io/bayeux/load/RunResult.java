package io.bayeux.load;

import java.util.List;
import java.util.Map;

/**
 * Every figure of one run, as written to {@code --json} and shown in the report. Rates are per
 * second; a <em>delivery</em> is one message arriving at one client, so "delivered msg/s" counts
 * deliveries, while "published msg/s" counts messages sent by publishers (each published message
 * causes as many deliveries as its room has subscribers). Null means "not measured".
 *
 * @param label       what was run (the server's name in a comparison)
 * @param scenario    the parameters
 * @param startedAt   ISO-8601 time of the start
 * @param drain       how the wait after the last batch ended: {@code complete} (everything expected
 *                    arrived), {@code quiet} (nothing arrived for 5 s with every client connected: what
 *                    is missing is lost) or {@code timeout} ({@code --drain-timeout} passed while
 *                    messages were still arriving: "lost" then includes messages that were only late)
 * @param connect     how the clients connected
 * @param counts      the exact account: expected, received, lost, duplicated...
 * @param rates       offered and achieved rates over the measured phase
 * @param latency     latency of the measured deliveries, in microseconds
 * @param percentiles the latency distribution: percentile and microseconds, for the plot
 * @param timeline    one sample per second of the whole run
 * @param tool        the load tool's own cost
 * @param server      the server's figures, where they could be read
 * @param stalled     with {@code --stalled-clients}: what the readers and the server made of them, else null
 * @param recovery    with {@code --recover}: how the clients' subscriptions recovered, else null
 * @param windows     with {@code --windows}: the measured phase window by window ({@link DeliveryWindows}), else null
 */
public record RunResult(String label, Map<String, Object> scenario, String startedAt, String drain, Connect connect,
                        Counts counts, Rates rates, Latency latency, List<double[]> percentiles,
                        List<Sample> timeline, Tool tool, Server server, Stalled stalled, Recovery recovery,
                        List<Window> windows) {

    /** A run without windows. */
    public RunResult(String label, Map<String, Object> scenario, String startedAt, String drain, Connect connect,
                     Counts counts, Rates rates, Latency latency, List<double[]> percentiles,
                     List<Sample> timeline, Tool tool, Server server, Stalled stalled, Recovery recovery) {
        this(label, scenario, startedAt, drain, connect, counts, rates, latency, percentiles, timeline, tool, server, stalled, recovery, null);
    }

    /**
     * One window of the measured phase ({@code --windows}): the messages published in it and what
     * became of them, wherever their deliveries fell in time. Latencies in microseconds.
     *
     * @param fromSecond         where the window starts, in seconds from the first measured publish
     * @param seconds            its length (the last window may be shorter)
     * @param deliveries         first arrivals of the window's messages
     * @param deliveredPerSecond those deliveries over the window's length
     * @param expected           the deliveries the window's messages called for
     * @param lost               expected minus delivered, at the end of the run
     * @param p50                median latency of the window's deliveries
     * @param p99                their 99th percentile
     * @param max                their largest
     */
    public record Window(double fromSecond, double seconds, long deliveries, double deliveredPerSecond, long expected, long lost,
                         long p50, long p99, long max) {
    }

    /**
     * What the clients' {@code RecoveryExtension}s told ({@code --recover}): every subscription
     * made again with a position (after a re-handshake) either recovered, and the server replayed
     * what the client missed, or did not, for a reason ({@code trimmed}, {@code expired},
     * {@code epoch}, {@code ahead}, {@code no_history}...; see docs/history.md). The replayed
     * messages are counted as arrivals like any other: a lost message stays lost unless replayed.
     *
     * @param recovered    subscriptions recovered
     * @param notRecovered subscriptions not recovered
     * @param reasons      those not recovered, by reason
     * @param replayed     messages the server replayed to the recovered subscriptions
     */
    public record Recovery(long recovered, long notRecovered, Map<String, Long> reasons, long replayed) {
    }

    /**
     * A run with clients that never read ({@code --stalled-clients}). "Before" is once every
     * client joined, before the first publish; "after" once the readers got everything (or the
     * drain ended), the stalled clients still connected, before they are closed. Null where it
     * could not be read.
     *
     * @param clients                  stalled clients
     * @param deliverySeconds          from the first publish to the last message arriving at a reader, when
     *                                 every reader got every message (drain {@code complete}, nothing lost, no
     *                                 publish failed), else null
     * @param heapBeforeBytes          the server's heap in use after a full GC ({@code jcmd}), before
     * @param heapAfterBytes           the same, after
     * @param rssBeforeBytes           the server's resident memory, before
     * @param rssAfterBytes            the same, after
     * @param directBeforeBytes        the server's direct memory in use, from its stats service: the JDK's direct
     *                                 buffers ({@code BufferPoolMXBean "direct"}, which counts Netty's and Jetty's
     *                                 pools' memory as well) plus what Netty allocates outside that accounting, if any
     * @param directAfterBytes         the same, after
     * @param queuedAfter              messages waiting in the server's session queues, after (its stats service)
     * @param sessionsAfter            sessions on the server, after (the stalled ones may have expired)
     */
    public record Stalled(int clients, Double deliverySeconds, Long heapBeforeBytes, Long heapAfterBytes,
                          Long rssBeforeBytes, Long rssAfterBytes, Long directBeforeBytes, Long directAfterBytes,
                          Long queuedAfter, Long sessionsAfter) {
    }

    /**
     * Clients, how long it took to connect and subscribe them, how many connections {@code --cut-every}
     * cut, and how many times a client had to handshake again (its session was gone).
     */
    public record Connect(int clients, int connected, long subscribeFailures, double seconds, int cuts, long rehandshakes) {
    }

    /**
     * @param offeredPublishedPerSecond  what the scenario asked for
     * @param publishedPerSecond         measured messages published per second
     * @param deliveredPerSecond         measured deliveries per second (messages arriving at clients)
     * @param expectedDeliveriesPerMessage the mean number of subscribers a published message reaches
     * @param measuredSeconds            from the first measured publish to the last measured arrival
     */
    public record Rates(double offeredPublishedPerSecond, double publishedPerSecond, double deliveredPerSecond,
                        double expectedDeliveriesPerMessage, double measuredSeconds, long measuredDeliveries) {
    }

    /** Microseconds. */
    public record Latency(long count, double mean, long p50, long p90, long p99, long p999, long max) {
    }

    /**
     * One second of the run.
     *
     * @param second    seconds since the first client started
     * @param phase     {@code connect}, {@code warmup}, {@code measure}, {@code drain} or {@code idle}
     * @param published messages published in that second
     * @param received  deliveries in that second
     * @param p50       median latency in that second (µs), or 0
     * @param p99       99th percentile in that second (µs), or 0
     * @param connected clients connected
     */
    public record Sample(double second, String phase, long published, long received, long p50, long p99, int connected) {
    }

    /** The tool's CPU over the measured phase and its threads. */
    public record Tool(double cpuSeconds, double cpuPercentOfOneCore, Double cpuMicrosPerDelivery, int ioThreads) {
    }

    /**
     * @param pid                 the server's process id when known
     * @param cpuSeconds          its CPU time (user + system) over the measured phase
     * @param cpuMicrosPerDelivery that CPU divided by the deliveries
     * @param jitCpuSeconds       the part of that CPU its JIT compiler threads used (a JVM on Linux), or null
     * @param cpuMicrosPerDeliveryWithoutJit the CPU without the JIT compilers', divided by the deliveries
     * @param rssBytes            resident memory at the end, clients still connected
     * @param rssBeforeBytes      resident memory before the clients connected
     * @param heapAfterGcBytes    heap in use after a full GC at the end (jcmd), clients still connected
     * @param heapBeforeBytes     the same before the clients connected (idle runs only)
     * @param stats               what the server's {@code /service/load/stats} answered at the end, or null
     * @param statsBefore         the same before the measured phase, or null
     * @param wire                what the server sent on its connections over the measured phase, or null
     * @param writes              the frames and flushes the server counted from the start of the
     *                            measured phase to the end of the run, or null (a server that does not tell them)
     */
    public record Server(Long pid, Double cpuSeconds, Double cpuMicrosPerDelivery, Double jitCpuSeconds,
                         Double cpuMicrosPerDeliveryWithoutJit, Long rssBytes, Long rssBeforeBytes,
                         Long heapAfterGcBytes, Long heapBeforeBytes, Map<String, Object> stats,
                         Map<String, Object> statsBefore, Wire wire, Writes writes) {
    }

    /**
     * What the server's event loops wrote, as its stats service counts it
     * ({@code framesWritten}, {@code flushes}): WebSocket frames and flushes of connections.
     *
     * @param frames              WebSocket frames written (none over long-polling)
     * @param flushes             flushes of connections
     * @param framesPerDelivery   frames divided by the deliveries, or null
     * @param flushesPerDelivery  flushes divided by the deliveries, or null
     */
    public record Writes(long frames, long flushes, Double framesPerDelivery, Double flushesPerDelivery) {
        /** What {@code end} counted since {@code start} (stats service answers), or null when either lacks them. */
        static Writes between(Map<String, Object> start, Map<String, Object> end, long deliveries) {
            Long frames0 = RunFigures.stat(start, "framesWritten");
            Long frames1 = RunFigures.stat(end, "framesWritten");
            Long flushes0 = RunFigures.stat(start, "flushes");
            Long flushes1 = RunFigures.stat(end, "flushes");
            if (frames0 == null || frames1 == null || flushes0 == null || flushes1 == null) {
                return null;
            }
            long frames = frames1 - frames0;
            long flushes = flushes1 - flushes0;
            return new Writes(frames, flushes, deliveries == 0 ? null : (double) frames / deliveries,
                    deliveries == 0 ? null : (double) flushes / deliveries);
        }
    }

    /**
     * What a server on this machine sent on its TCP connections over the measured phase, as the
     * kernel counts it ({@link SocketFigures}): payload bytes (frames, HTTP, TLS: all of it) and
     * segments, which tell how its writes were coalesced.
     *
     * @param bytesSent              bytes sent
     * @param segmentsSent           TCP segments sent
     * @param bytesPerDelivery       bytes sent divided by the deliveries, or null
     * @param segmentsPerDelivery    segments sent divided by the deliveries, or null
     */
    public record Wire(long bytesSent, long segmentsSent, Double bytesPerDelivery, Double segmentsPerDelivery) {
    }
}
