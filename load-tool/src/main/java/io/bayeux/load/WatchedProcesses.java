package io.bayeux.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The processes of a cluster besides the one {@code --server-pid} names ({@code --cpu-pid}: the
 * other nodes, their Redis): the CPU each used over the measured window, in total and per
 * delivery and per published message, read from {@code /proc/PID/stat} as {@link ProcessFigures}
 * reads the server's.
 * <p>
 * Not thread-safe: {@link #start()} and {@link #finish} are called by the thread that paces the
 * publishers, one after the other.
 */
final class WatchedProcesses {
    private final List<Long> pids;
    /** The CPU of each pid at {@link #start()}, null where it could not be read; guarded by confinement. */
    private Long[] startNanos;

    WatchedProcesses(List<Long> pids) {
        this.pids = List.copyOf(pids);
        this.startNanos = new Long[this.pids.size()];
    }

    /** Reads every process's CPU now: the start of the measured window. */
    void start() {
        Long[] now = new Long[pids.size()];
        for (int i = 0; i < pids.size(); i++) {
            now[i] = ProcessFigures.cpuNanos(pids.get(i));
        }
        startNanos = now;
    }

    /** Each process's CPU since {@link #start()}, per delivery and per published message of the window; CPU null where unread. */
    List<Figure> finish(long deliveries, long published) {
        List<Figure> figures = new ArrayList<>(pids.size());
        for (int i = 0; i < pids.size(); i++) {
            long pid = pids.get(i);
            Long end = ProcessFigures.cpuNanos(pid);
            Double cpu = end == null || startNanos[i] == null ? null : (end - startNanos[i]) / 1e9;
            figures.add(new Figure(pid, name(pid), cpu,
                    cpu == null || deliveries == 0 ? null : cpu * 1e6 / deliveries,
                    cpu == null || published == 0 ? null : cpu * 1e6 / published));
        }
        return figures;
    }

    /** The program's name ({@code /proc/PID/comm}), or "?" when the process is gone. */
    private static String name(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "comm"), StandardCharsets.UTF_8).trim();
        } catch (IOException | RuntimeException x) {
            return "?";
        }
    }

    /**
     * One process's CPU over the measured window.
     *
     * @param cpuSeconds           user + system, null when it could not be read
     * @param microsPerDelivery    per delivery to a client of the whole cluster
     * @param microsPerPublished   per message the publishers sent
     */
    record Figure(long pid, String name, Double cpuSeconds, Double microsPerDelivery, Double microsPerPublished) {
        /** One line: {@code process 1234 (redis-server): 0.52 s CPU, 1.31 µs per delivery, 26.0 µs per published message}. */
        String line() {
            if (cpuSeconds == null) {
                return String.format(Locale.ROOT, "process %d (%s): CPU not read", pid, name);
            }
            return String.format(Locale.ROOT, "process %d (%s): %.2f s CPU, %.2f µs per delivery, %.1f µs per published message",
                    pid, name, cpuSeconds, microsPerDelivery == null ? 0 : microsPerDelivery, microsPerPublished == null ? 0 : microsPerPublished);
        }
    }
}
