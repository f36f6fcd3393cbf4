package io.bayeux.load;

import java.io.BufferedReader;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the operating system and the JDK tell about a process on this machine: CPU time
 * ({@code utime + stime} of {@code /proc/PID/stat}), resident memory ({@code VmRSS} of
 * {@code /proc/PID/status}) and, for a JVM, the heap in use right after a full GC (through
 * {@code jcmd}). Every figure is null where it cannot be read (not Linux, process gone, no jcmd).
 * The CPU of a JVM's JIT compiler threads is read per thread ({@code /proc/PID/task/TID/stat}
 * of the threads named {@code C1 CompilerThread}, {@code C2 CompilerThread} and the like).
 */
final class ProcessFigures {
    /** Clock ticks per second of {@code /proc/PID/stat}; 100 on every Linux this runs on (USER_HZ). */
    private static final long TICKS_PER_SECOND = 100;
    private static final Pattern HEAP_USED = Pattern.compile("\\bheap\\b[^\\n]*?\\bused\\s+(\\d+)K");

    private ProcessFigures() {
    }

    /** The CPU time (user + system) of process {@code pid} in nanoseconds, or null. */
    static Long cpuNanos(long pid) {
        try {
            return statCpuNanos(Path.of("/proc", Long.toString(pid), "stat"));
        } catch (IOException | RuntimeException x) {
            return null;
        }
    }

    /** {@code utime + stime} of a {@code stat} file of /proc (a process's or a thread's), in nanoseconds. */
    private static long statCpuNanos(Path statFile) throws IOException {
        String stat = firstLine(statFile);
        // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
        long utime = Long.parseLong(fields[11]);
        long stime = Long.parseLong(fields[12]);
        return (utime + stime) * (1_000_000_000L / TICKS_PER_SECOND);
    }

    /** Read as a stream: a /proc file tells no size. */
    private static String firstLine(Path file) throws IOException {
        try (BufferedReader reader = Files.newBufferedReader(file)) {
            String line = reader.readLine();
            if (line == null) {
                throw new IOException("Empty: " + file);
            }
            return line;
        }
    }

    /** The CPU clocks of process {@code pid} now: the whole process's and its JIT compiler threads', or null. */
    static CpuSample cpuSample(long pid) {
        Long process = cpuNanos(pid);
        if (process == null) {
            return null;
        }
        Map<Long, Long> compilers = new HashMap<>();
        try (DirectoryStream<Path> threads = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path thread : threads) {
                try {
                    // HotSpot's names, cut to 15 characters: "C2 CompilerThre", "C1 CompilerThre", "JVMCI CompilerT".
                    if (firstLine(thread.resolve("comm")).contains("Compiler")) {
                        compilers.put(Long.parseLong(thread.getFileName().toString()), statCpuNanos(thread.resolve("stat")));
                    }
                } catch (IOException | RuntimeException gone) {
                    // The thread ended meanwhile.
                }
            }
        } catch (IOException | RuntimeException x) {
            return new CpuSample(process, null);
        }
        return new CpuSample(process, compilers);
    }

    /**
     * A process's CPU clocks at one moment, in nanoseconds.
     *
     * @param processNanos  the whole process's (user + system)
     * @param compilerNanos each JIT compiler thread's, by thread id; null when they could not be read
     */
    record CpuSample(long processNanos, Map<Long, Long> compilerNanos) {
        /**
         * The CPU the JIT compilers used since {@code earlier}, or null. A compiler thread that
         * ended in between (the JVM adds and removes them as the queue of work changes) counts for
         * nothing: the figure can be low, never high.
         */
        Long compilerNanosSince(CpuSample earlier) {
            if (compilerNanos == null || earlier.compilerNanos == null) {
                return null;
            }
            long sum = 0;
            for (Map.Entry<Long, Long> thread : compilerNanos.entrySet()) {
                sum += Math.max(0, thread.getValue() - earlier.compilerNanos.getOrDefault(thread.getKey(), 0L));
            }
            return sum;
        }
    }

    /** The resident set size of process {@code pid} in bytes, or null. */
    static Long rssBytes(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    String[] parts = line.substring(6).trim().split("\\s+");
                    return Long.parseLong(parts[0]) * 1024;
                }
            }
        } catch (IOException | RuntimeException x) {
            // Not Linux, or the process is gone.
        }
        return null;
    }

    /** This JVM's own CPU time in nanoseconds (all its threads, user + system). */
    static long ownCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            long cpu = os.getProcessCpuTime();
            if (cpu >= 0) {
                return cpu;
            }
        }
        Long cpu = cpuNanos(ProcessHandle.current().pid());
        return cpu == null ? 0 : cpu;
    }

    /**
     * Runs a full GC in JVM {@code pid} ({@code jcmd PID GC.run}), then reads the heap in use
     * ({@code jcmd PID GC.heap_info}); null when jcmd is missing or the process is not a JVM.
     */
    static Long heapAfterGcBytes(long pid) {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        String command = Files.isExecutable(jcmd) ? jcmd.toString() : "jcmd";
        if (run(List.of(command, Long.toString(pid), "GC.run")) == null) {
            return null;
        }
        String info = run(List.of(command, Long.toString(pid), "GC.heap_info"));
        if (info == null) {
            return null;
        }
        Matcher matcher = HEAP_USED.matcher(info);
        return matcher.find() ? Long.parseLong(matcher.group(1)) * 1024 : null;
    }

    private static String run(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] out = process.getInputStream().readAllBytes();
            if (!process.waitFor(Duration.ofSeconds(30).toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                return null;
            }
            return process.exitValue() == 0 ? new String(out, java.nio.charset.StandardCharsets.UTF_8) : null;
        } catch (IOException x) {
            return null;
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
