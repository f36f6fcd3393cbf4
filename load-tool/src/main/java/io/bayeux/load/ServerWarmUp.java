package io.bayeux.load;

import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;

/**
 * {@code bayeux-load server --warm-up}: before the server opens its port, runs the
 * {@linkplain AotTraining training workload} (real clients, real messages, over WebSocket and
 * long-polling, against a throwaway server of the same code on a free port of its own) until the
 * JIT compilers are nearly idle, so that the first clients meet compiled code. Compiled code
 * belongs to the JVM, not to a server instance: what the throwaway server made hot is hot for the
 * real one.
 *
 * <p>A round is one run of the workload; the warm-up stops after a round in which the compilers
 * spent less than {@link #IDLE_SHARE} of the round's time, or once {@code max} has passed.
 * Stateless; run it on one thread.
 */
final class ServerWarmUp {
    /** The compilers' share of a round's wall time below which they count as idle. */
    static final double IDLE_SHARE = 0.1;

    private ServerWarmUp() {
    }

    /** What a warm-up did. */
    record Result(int rounds, Duration took, Duration compiling, boolean clean) {
        String line() {
            return String.format(java.util.Locale.ROOT, "Warmed up in %.1f s: %d round(s), %.1f s of JIT compilation%s", took.toMillis() / 1e3,
                    rounds, compiling.toMillis() / 1e3, clean ? "" : " (a round lost messages)");
        }
    }

    /** Runs rounds of the workload until the compilers are nearly idle or {@code max} has passed; at least one round. */
    static Result run(Duration max) throws InterruptedException {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean timed = jit != null && jit.isCompilationTimeMonitoringSupported();
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        long start = System.nanoTime();
        long compilingStart = timed ? jit.getTotalCompilationTime() : 0;
        int rounds = 0;
        boolean clean = true;
        while (true) {
            long roundStart = System.nanoTime();
            long compiling = timed ? jit.getTotalCompilationTime() : 0;
            clean &= AotTraining.train(quiet);
            rounds++;
            double roundMillis = (System.nanoTime() - roundStart) / 1e6;
            // Without the compilers' time, one round is all there is to go by.
            boolean idle = !timed || (jit.getTotalCompilationTime() - compiling) < IDLE_SHARE * roundMillis;
            if (idle || System.nanoTime() - start > max.toNanos()) {
                break;
            }
        }
        return new Result(rounds, Duration.ofNanos(System.nanoTime() - start),
                Duration.ofMillis(timed ? jit.getTotalCompilationTime() - compilingStart : 0), clean);
    }
}
