package io.bayeux.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The server's memory at one moment, as the density mode reads it; a figure is null where it
 * cannot be read.
 *
 * @param sessions          the sessions the server's stats service counts (its own local sessions left out)
 * @param channels          the channels the server holds, as its stats service counts them
 * @param heapAfterGcBytes  heap in use right after a full GC ({@code jcmd})
 * @param directBytes       direct memory in use, as the stats service reports it
 * @param rssBytes          the process's resident set
 * @param socketMemoryBytes the kernel's TCP socket buffers, all sockets of the machine
 *                          ({@code mem} of the TCP line of {@code /proc/net/sockstat}, in 4 KiB pages):
 *                          on loopback both ends of every connection are counted
 */
record ServerSample(Long sessions, Long channels, Long heapAfterGcBytes, Long directBytes, Long rssBytes, Long socketMemoryBytes) {
    private static final long PAGE_BYTES = 4096;

    /** Reads every figure now: {@code stats} is what the server's stats service answered (or null). */
    static ServerSample take(Long serverPid, Map<String, Object> stats) {
        Long heap = serverPid == null ? null : ProcessFigures.heapAfterGcBytes(serverPid);
        Long rss = serverPid == null ? null : ProcessFigures.rssBytes(serverPid);
        return new ServerSample(RunFigures.stat(stats, "sessions"), RunFigures.stat(stats, "channels"), heap, RunFigures.stat(stats, "directBytes"), rss,
                socketMemoryBytes(Path.of("/proc/net/sockstat")));
    }

    /** The {@code mem} of the {@code TCP:} line of a sockstat file, in bytes; null when it cannot be read. */
    static Long socketMemoryBytes(Path sockstat) {
        try {
            for (String line : Files.readAllLines(sockstat)) {
                if (line.startsWith("TCP:")) {
                    String[] fields = line.substring(4).trim().split("\\s+");
                    for (int i = 0; i + 1 < fields.length; i += 2) {
                        if (fields[i].equals("mem")) {
                            return Long.parseLong(fields[i + 1]) * PAGE_BYTES;
                        }
                    }
                }
            }
        } catch (IOException | RuntimeException x) {
            // Not Linux.
        }
        return null;
    }

    /** Per connection, in KiB, of what {@code this} holds more than {@code base} with {@code connections} more connections; null figures stay null. */
    PerConnection perConnectionOver(ServerSample base, long connections) {
        return new PerConnection(kib(heapAfterGcBytes, base.heapAfterGcBytes, connections), kib(directBytes, base.directBytes, connections),
                kib(rssBytes, base.rssBytes, connections), kib(socketMemoryBytes, base.socketMemoryBytes, connections));
    }

    private static Double kib(Long now, Long before, long connections) {
        return now == null || before == null || connections <= 0 ? null : (now - before) / 1024.0 / connections;
    }

    /** KiB per connection: heap after GC, direct memory, RSS, kernel socket memory. */
    record PerConnection(Double heapKiB, Double directKiB, Double rssKiB, Double socketKiB) {
    }
}
