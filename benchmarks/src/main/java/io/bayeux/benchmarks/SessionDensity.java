package io.bayeux.benchmarks;

import io.bayeux.api.Promise;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.server.spi.Connection;
import io.bayeux.server.spi.Endpoint;

import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The server core holding many idle sessions without sockets: {@code sessions} in-memory
 * WebSocket-like endpoints, each handshaken, subscribed to {@code perSession} of {@code channels}
 * channels (session {@code i} to channels {@code i*perSession ... } modulo {@code channels}, so
 * every channel has as many subscribers) and holding a {@code /meta/connect}, all through the
 * JSON a transport hands the core. Prints the heap per session after a full GC (the endpoints,
 * 16 bytes each, left out), the classes that grew (a class histogram before and after, per
 * session), and the CPU the process spends in {@code seconds} while every session sits idle
 * (the sweeper's passes, timers, GC), against the same window with no session.
 *
 * <p>Not a JMH benchmark: it measures what stays, not how fast. Run it with a heap that holds the
 * count, e.g. {@code java -Xmx4g -Xms4g -cp benchmarks/target/benchmarks.jar
 * io.bayeux.benchmarks.SessionDensity 1000000 10000 10 30}. The held connects use the core's
 * default timeout unless {@code -Dtimeout=SECONDS} says otherwise; by default one hour, so that
 * the idle window has no connect cycle in it and measures the server's own periodic work.
 */
public final class SessionDensity {
    private static final long ENDPOINT_BYTES = 16;

    private SessionDensity() {
    }

    public static void main(String[] args) throws Exception {
        int sessions = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int channels = args.length > 1 ? Integer.parseInt(args[1]) : 10_000;
        int perSession = args.length > 2 ? Integer.parseInt(args[2]) : 10;
        int seconds = args.length > 3 ? Integer.parseInt(args[3]) : 30;
        Duration timeout = Duration.ofSeconds(Long.getLong("timeout", 3600));

        BayeuxServerImpl bayeux = new BayeuxServerImpl(BayeuxServerConfig.builder().timeout(timeout).build()).start();
        try {
            double emptyCpu = idleCpuPercent(seconds);
            long heapBefore = heapAfterGc();
            Map<String, long[]> histogramBefore = histogram();
            long start = System.nanoTime();
            for (int i = 0; i < sessions; i++) {
                open(bayeux, i, channels, perSession);
                if ((i + 1) % 100_000 == 0) {
                    System.out.printf(Locale.ROOT, "%,d sessions in %.1f s%n", i + 1, (System.nanoTime() - start) / 1e9);
                }
            }
            int held = bayeux.getSessions().size();
            long heapAfter = heapAfterGc();
            Map<String, long[]> histogramAfter = histogram();
            double perSessionBytes = (double) (heapAfter - heapBefore) / sessions - ENDPOINT_BYTES;
            System.out.printf(Locale.ROOT, "%,d sessions (the server counts %,d), each in %d of %,d channels: heap after GC %.1f -> %.1f MiB,"
                            + " %.0f bytes per session without its endpoint%n", sessions, held, perSession, channels,
                    heapBefore / 1048576.0, heapAfter / 1048576.0, perSessionBytes);
            printGrowth(histogramBefore, histogramAfter, sessions);
            double fullCpu = idleCpuPercent(seconds);
            System.out.printf(Locale.ROOT, "process CPU over %d s idle: %.2f %% of a core with no session, %.2f %% with %,d%n",
                    seconds, emptyCpu, fullCpu, sessions);
        } finally {
            bayeux.stop();
        }
    }

    /** Handshake, a first connect answered at once with the subscriptions in the same batch, then a held connect. */
    private static void open(BayeuxServerImpl bayeux, int index, int channels, int perSession) throws Exception {
        Connection connection = bayeux.newConnection(new IdleEndpoint());
        List<ServerMessage> replies = send(bayeux, connection, "[{\"id\":\"1\",\"channel\":\"/meta/handshake\",\"version\":\"1.0\","
                + "\"supportedConnectionTypes\":[\"websocket\"]}]");
        String clientId = replies.get(0).getClientId();
        if (clientId == null) {
            throw new IllegalStateException("Handshake refused: " + replies);
        }
        StringBuilder batch = new StringBuilder("[{\"id\":\"2\",\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\","
                + "\"advice\":{\"timeout\":0},\"clientId\":\"").append(clientId).append("\"}");
        for (int k = 0; k < perSession; k++) {
            int channel = (int) (((long) index * perSession + k) % channels);
            batch.append(",{\"id\":\"").append(3 + k).append("\",\"channel\":\"/meta/subscribe\",\"subscription\":\"/room/")
                    .append(channel).append("\",\"clientId\":\"").append(clientId).append("\"}");
        }
        replies = send(bayeux, connection, batch.append(']').toString());
        for (ServerMessage reply : replies) {
            if (!reply.isSuccessful()) {
                throw new IllegalStateException("Refused: " + reply);
            }
        }
        // Held: its reply comes at the timeout, or never while this runs.
        connection.handle(bayeux.decode(("[{\"id\":\"" + (3 + perSession) + "\",\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\","
                + "\"clientId\":\"" + clientId + "\"}]").getBytes(StandardCharsets.UTF_8)), held -> { });
    }

    private static List<ServerMessage> send(BayeuxServerImpl bayeux, Connection connection, String json) throws Exception {
        CompletableFuture<List<ServerMessage>> replies = new CompletableFuture<>();
        connection.handle(bayeux.decode(json.getBytes(StandardCharsets.UTF_8)), replies::complete);
        return replies.get(10, TimeUnit.SECONDS);
    }

    private static double idleCpuPercent(int seconds) throws InterruptedException {
        System.gc();
        Thread.sleep(2000);
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu = os.getProcessCpuTime();
        long start = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        return 100.0 * (os.getProcessCpuTime() - cpu) / (System.nanoTime() - start);
    }

    private static long heapAfterGc() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Bytes and instances by class, from the JVM's own class histogram (which runs a full GC first). */
    private static Map<String, long[]> histogram() throws Exception {
        String text = (String) ManagementFactory.getPlatformMBeanServer().invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"),
                "gcClassHistogram", new Object[]{new String[0]}, new String[]{String[].class.getName()});
        Map<String, long[]> byClass = new HashMap<>();
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 4 && f[0].endsWith(":")) {
                byClass.put(f[3], new long[]{Long.parseLong(f[1]), Long.parseLong(f[2])});
            }
        }
        return byClass;
    }

    private static void printGrowth(Map<String, long[]> before, Map<String, long[]> after, int sessions) {
        List<Map.Entry<String, long[]>> grown = new ArrayList<>();
        for (Map.Entry<String, long[]> e : after.entrySet()) {
            long[] was = before.getOrDefault(e.getKey(), new long[2]);
            grown.add(Map.entry(e.getKey(), new long[]{e.getValue()[0] - was[0], e.getValue()[1] - was[1]}));
        }
        grown.sort((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]));
        System.out.println("what grew, per session: bytes, instances, class");
        for (Map.Entry<String, long[]> e : grown.subList(0, Math.min(20, grown.size()))) {
            System.out.printf(Locale.ROOT, "  %8.1f  %6.2f  %s%n", (double) e.getValue()[1] / sessions, (double) e.getValue()[0] / sessions, e.getKey());
        }
    }

    /** A WebSocket-like endpoint in memory that drops what it is given; no state, 16 bytes. */
    static final class IdleEndpoint implements Endpoint {
        private static final Executor INLINE = Runnable::run;

        @Override
        public String transportName() {
            return "websocket";
        }

        @Override
        public boolean canPush() {
            return true;
        }

        @Override
        public Executor eventLoop() {
            return INLINE;
        }

        @Override
        public void write(List<ServerMessage> batch, Promise<Void> written) {
            written.succeed(null);
        }
    }
}
