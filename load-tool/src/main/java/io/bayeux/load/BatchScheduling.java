package io.bayeux.load;

import io.netty.util.concurrent.DefaultThreadFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Puts threads of the load tool's clients in Linux's {@code SCHED_BATCH} scheduling policy, so
 * that on the machine of the server they measure they do not preempt it. A reader woken by the
 * server's send of a frame (on loopback the send itself delivers the bytes and wakes the
 * reader) would otherwise take the server's core from it there and then, and a broadcast to
 * thousands of readers becomes thousands of switches between the server and its readers: a
 * cost clients on other machines never impose. A batch thread is woken as before and runs as
 * soon as a core is free or the running thread's time slice ends; it gets its fair share of
 * the CPU, and no privilege is needed to choose it.
 *
 * <p>The JDK has no call for it, so each thread asks {@code chrt} (util-linux) to switch it, by
 * its thread id, when it starts. Where that fails (no {@code chrt}, not Linux) the thread runs
 * as before and the failure is told once. Stateless; thread-safe.
 */
final class BatchScheduling {
    /** Linux's normal policy, as {@code /proc} tells it. */
    static final int SCHED_OTHER = 0;
    /** Linux's batch policy, as {@code /proc} tells it. */
    static final int SCHED_BATCH = 3;
    /** The field of {@code /proc/.../stat} that holds the policy (man 5 proc). */
    private static final int POLICY_FIELD = 41;
    private static final long CHRT_TIMEOUT_SECONDS = 10;

    private BatchScheduling() {
    }

    /**
     * A factory of event-loop threads named after {@code poolName}; with {@code batch}, each
     * switches itself to {@code SCHED_BATCH} before it runs, and {@code failures} hears why one
     * could not (on that thread).
     */
    static ThreadFactory threads(String poolName, boolean batch, Consumer<String> failures) {
        if (!batch) {
            return new DefaultThreadFactory(poolName, true);
        }
        return new DefaultThreadFactory(poolName, true) {
            @Override
            protected Thread newThread(Runnable r, String name) {
                return super.newThread(() -> {
                    String failure = switchThisThread();
                    if (failure != null) {
                        failures.accept(failure);
                    }
                    r.run();
                }, name);
            }
        };
    }

    /** Switches the calling thread to {@code SCHED_BATCH}; null when done, else why not. */
    static String switchThisThread() {
        String thread;
        try {
            // "<pid>/task/<tid>": the calling thread's own entry.
            thread = Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
        } catch (IOException | UnsupportedOperationException x) {
            return "no /proc/thread-self (" + x.getMessage() + ")";
        }
        Process chrt;
        try {
            chrt = new ProcessBuilder("chrt", "--batch", "--pid", "0", thread).redirectErrorStream(true).start();
        } catch (IOException x) {
            return "chrt did not start: " + x.getMessage();
        }
        try {
            if (!chrt.waitFor(CHRT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                chrt.destroyForcibly();
                return "chrt did not end within " + CHRT_TIMEOUT_SECONDS + " s";
            }
            String said = new String(chrt.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (chrt.exitValue() != 0) {
                return "chrt failed (exit code " + chrt.exitValue() + "): " + said;
            }
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            return "interrupted while chrt ran";
        } catch (IOException x) {
            return "chrt's output unread: " + x.getMessage();
        }
        int policy = policyOfThisThread();
        return policy == SCHED_BATCH ? null : "chrt ran, yet the thread's policy is " + policy;
    }

    /** The calling thread's scheduling policy ({@link #SCHED_OTHER}, {@link #SCHED_BATCH}, ...), or -1 if unknown. */
    static int policyOfThisThread() {
        try {
            String stat = Files.readString(Path.of("/proc/thread-self/stat"), StandardCharsets.US_ASCII);
            // The command name (field 2) is in parentheses and may hold spaces: count from the last ')', field 3 on.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
            return Integer.parseInt(fields[POLICY_FIELD - 3]);
        } catch (IOException | RuntimeException x) {
            return -1;
        }
    }
}
