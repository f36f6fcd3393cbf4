package io.bayeux.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/** The summary table printed at the end of a run, and the JSON file. */
final class Summary {
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Summary() {
    }

    static void print(RunResult r, PrintStream out) {
        Map<String, Object> s = r.scenario();
        out.printf(Locale.ROOT, "%s: %s, %s clients, %s rooms, %s per client, %s chars, offered %s published msg/s%n",
                r.label(), s.get("transport"), s.get("clients"), s.get("rooms"), s.get("roomsPerClient"), s.get("messageSize"),
                Format.number(r.rates().offeredPublishedPerSecond()));
        row(out, "connected", r.connect().connected() + "/" + r.connect().clients() + " in " + Format.number(r.connect().seconds()) + " s"
                + (r.connect().subscribeFailures() > 0 ? ", " + r.connect().subscribeFailures() + " subscriptions refused" : "")
                + (r.connect().cuts() > 0 ? ", " + r.connect().cuts() + " connections cut" : "")
                + (r.connect().rehandshakes() > 0 ? ", " + r.connect().rehandshakes() + " handshakes again" : ""));
        Counts c = r.counts();
        if (!Boolean.TRUE.equals(s.get("idle"))) {
            row(out, "published", String.format(Locale.ROOT, "%,d msg/s over %.1f s measured (%,d messages in all%s)",
                    Math.round(r.rates().publishedPerSecond()), r.rates().measuredSeconds(), c.published(),
                    c.failedPublishes() > 0 ? ", " + c.failedPublishes() + " failed" : ""));
            row(out, "delivered", String.format(Locale.ROOT, "%,d msg/s (deliveries: messages arriving at clients; %.1f per published message)",
                    Math.round(r.rates().deliveredPerSecond()), r.rates().expectedDeliveriesPerMessage()));
            row(out, "expected", String.format(Locale.ROOT, "%,d", c.expected()));
            row(out, "received", String.format(Locale.ROOT, "%,d", c.received()));
            Long overflows = r.server() == null ? null : RunFigures.stat(r.server().stats(), "queueOverflows");
            row(out, "lost", String.format(Locale.ROOT, "%,d%s%s%s", c.lost(), c.lost() != 0 ? "   <-- LOST MESSAGES" : "",
                    "timeout".equals(r.drain()) ? " (the drain timed out while messages were still arriving: some were late, not lost)" : "",
                    overflows != null && overflows > 0 ? String.format(Locale.ROOT,
                            " (the server's full session queues met %,d messages since it started, each handled as its overflow policy says)",
                            overflows) : ""));
            row(out, "duplicated", String.format(Locale.ROOT, "%,d%s", c.duplicated(), c.duplicated() != 0 ? "   <-- DUPLICATES" : ""));
            if (c.unexpected() != 0 || c.lateFailed() != 0) {
                row(out, "unexpected", String.format(Locale.ROOT, "%,d (late after a failed publish: %,d)", c.unexpected(), c.lateFailed()));
            }
            row(out, "out of order", c.outOfOrder() < 0 ? "not checked (too many clients)" : String.format(Locale.ROOT, "%,d", c.outOfOrder()));
            if (r.recovery() != null) {
                row(out, "recovery", recovery(r.recovery()));
            }
            RunResult.Latency l = r.latency();
            row(out, "latency", "p50 " + Format.micros(l.p50()) + "  p90 " + Format.micros(l.p90()) + "  p99 " + Format.micros(l.p99())
                    + "  p99.9 " + Format.micros(l.p999()) + "  max " + Format.micros(l.max()));
            if (r.windows() != null) {
                r.windows().forEach(w -> row(out, window(w), windowFigures(w)));
            }
        }
        RunResult.Tool t = r.tool();
        row(out, "tool CPU", String.format(Locale.ROOT, "%.1f s, %.0f%% of a core%s, %d I/O threads", t.cpuSeconds(), t.cpuPercentOfOneCore(),
                t.cpuMicrosPerDelivery() == null ? "" : String.format(Locale.ROOT, ", %.2f µs/delivery", t.cpuMicrosPerDelivery()), t.ioThreads()));
        RunResult.Server sv = r.server();
        if (sv.pid() != null) {
            row(out, "server CPU", sv.cpuSeconds() == null ? "-" : String.format(Locale.ROOT, "%.1f s%s%s", sv.cpuSeconds(),
                    sv.cpuMicrosPerDelivery() == null ? "" : String.format(Locale.ROOT, ", %.2f µs/delivery", sv.cpuMicrosPerDelivery()),
                    sv.jitCpuSeconds() == null ? "" : String.format(Locale.ROOT, "; JIT compilers %.1f s%s", sv.jitCpuSeconds(),
                            sv.cpuMicrosPerDeliveryWithoutJit() == null ? ""
                                    : String.format(Locale.ROOT, ", %.2f µs/delivery without them", sv.cpuMicrosPerDeliveryWithoutJit()))));
            row(out, "server memory", "RSS " + Format.bytes(sv.rssBytes()) + " (before " + Format.bytes(sv.rssBeforeBytes()) + "), heap after GC "
                    + Format.bytes(sv.heapAfterGcBytes()) + (sv.heapBeforeBytes() == null ? "" : " (before " + Format.bytes(sv.heapBeforeBytes()) + ")"));
            if (sv.heapBeforeBytes() != null && sv.heapAfterGcBytes() != null) {
                row(out, "per connection", "heap " + Format.bytes((sv.heapAfterGcBytes() - sv.heapBeforeBytes()) / Math.max(1, r.connect().clients()))
                        + (sv.rssBytes() != null && sv.rssBeforeBytes() != null
                        ? ", RSS " + Format.bytes((sv.rssBytes() - sv.rssBeforeBytes()) / Math.max(1, r.connect().clients())) : ""));
            }
        } else if (sv.cpuSeconds() != null) {
            row(out, "server CPU", String.format(Locale.ROOT, "%.1f s%s, as the server reports it (from %s)", sv.cpuSeconds(),
                    sv.cpuMicrosPerDelivery() == null ? "" : String.format(Locale.ROOT, ", %.2f µs/delivery", sv.cpuMicrosPerDelivery()),
                    RunFigures.cpuSource(sv.stats())));
        }
        RunResult.Wire wire = sv.wire();
        if (wire != null && wire.bytesPerDelivery() != null) {
            row(out, "server wire", String.format(Locale.ROOT, "%s sent in %,d TCP segments: %.0f bytes, %.2f segments per delivery",
                    Format.bytes(wire.bytesSent()), wire.segmentsSent(), wire.bytesPerDelivery(), wire.segmentsPerDelivery()));
        }
        RunResult.Writes writes = sv.writes();
        if (writes != null && writes.framesPerDelivery() != null) {
            row(out, "server writes", String.format(Locale.ROOT, "%,d WebSocket frames, %,d flushes: %.3f frames, %.3f flushes per delivery",
                    writes.frames(), writes.flushes(), writes.framesPerDelivery(), writes.flushesPerDelivery()));
        }
        RunResult.Stalled st0 = r.stalled();
        if (st0 != null) {
            row(out, "stalled", String.format(Locale.ROOT, "%d client(s) never read; the readers got every message in %s",
                    st0.clients(), st0.deliverySeconds() == null ? "- (not all delivered: drain " + r.drain() + ", " + r.counts().lost() + " lost, "
                            + r.counts().failedPublishes() + " publishes failed)"
                            : String.format(Locale.ROOT, "%.1f s (first publish to last delivery)", st0.deliverySeconds())));
            row(out, "memory growth", "heap after GC " + growth(st0.heapBeforeBytes(), st0.heapAfterBytes())
                    + ", RSS " + growth(st0.rssBeforeBytes(), st0.rssAfterBytes())
                    + ", direct " + growth(st0.directBeforeBytes(), st0.directAfterBytes())
                    + " (before publishing -> end of the run, stalled clients still connected: "
                    + (st0.queuedAfter() == null ? "-" : st0.queuedAfter()) + " queued, "
                    + (st0.sessionsAfter() == null ? "-" : st0.sessionsAfter()) + " sessions)");
        }
        if (sv.stats() != null) {
            Map<String, Object> st = sv.stats();
            Map<String, Object> before = sv.statsBefore();
            long gcCount = number(st.get("gcCount")) - (before == null ? 0 : number(before.get("gcCount")));
            long gcMillis = number(st.get("gcMillis")) - (before == null ? 0 : number(before.get("gcMillis")));
            // A server read through its scrape endpoint tells its queues' depth at flush, not what they hold.
            String queues = st.get("queued") == null && st.get("queueDepthMean") instanceof Number depth
                    ? String.format(Locale.ROOT, "queue depth %.1f at flush (mean)", depth.doubleValue())
                    : number(st.get("queued")) + " queued";
            row(out, "server stats", String.format(Locale.ROOT, "%d sessions, %s, %d GCs (%d ms) during the run%s",
                    number(st.get("sessions")), queues, gcCount, gcMillis, "metrics".equals(st.get("source")) ? " (from /metrics)" : ""));
        }
    }

    /** {@code 12 subscriptions recovered, 345 messages replayed; 2 not recovered (trimmed 2)}. */
    static String recovery(RunResult.Recovery rc) {
        StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "%,d subscriptions recovered, %,d messages replayed; %,d not recovered",
                rc.recovered(), rc.replayed(), rc.notRecovered()));
        if (rc.notRecovered() > 0) {
            StringBuilder reasons = new StringBuilder();
            rc.reasons().forEach((reason, n) -> reasons.append(reasons.isEmpty() ? "" : ", ").append(reason).append(' ').append(String.format(Locale.ROOT, "%,d", n)));
            text.append(" (").append(reasons).append(")   <-- NOT RECOVERED");
        }
        return text.toString();
    }

    /** {@code window 0-10 s}: which messages a window's row is about (those published then). */
    static String window(RunResult.Window w) {
        return String.format(Locale.ROOT, "sent %s-%s s", Format.number(w.fromSecond()), Format.number(w.fromSecond() + w.seconds()));
    }

    /** {@code 129,800 deliveries/s  p50 3.1 ms  p99 913 ms  max 1.2 s  lost 0}. */
    static String windowFigures(RunResult.Window w) {
        return String.format(Locale.ROOT, "%,d deliveries/s  p50 %s  p99 %s  max %s  lost %,d%s", Math.round(w.deliveredPerSecond()),
                Format.micros(w.p50()), Format.micros(w.p99()), Format.micros(w.max()), w.lost(), w.lost() != 0 ? "   <-- LOST MESSAGES" : "");
    }

    /** {@code before -> after (+growth)}, or what is known. */
    static String growth(Long before, Long after) {
        if (before == null || after == null) {
            return Format.bytes(before) + " -> " + Format.bytes(after);
        }
        return Format.bytes(before) + " -> " + Format.bytes(after) + String.format(Locale.ROOT, " (%+.1f MiB)", (after - before) / 1048576.0);
    }

    private static long number(Object value) {
        return value instanceof Number n ? n.longValue() : 0;
    }

    private static void row(PrintStream out, String name, String value) {
        out.printf(Locale.ROOT, "  %-15s %s%n", name, value);
    }

    static void writeJson(Object value, Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        JSON.writeValue(file.toFile(), value);
    }
}
