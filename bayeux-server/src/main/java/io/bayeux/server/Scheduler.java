package io.bayeux.server;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Time and timers for the server: long-poll holds, lazy delivery, session sweeping. Injected
 * so that tests drive time by hand instead of sleeping. Implementations are thread-safe.
 */
public interface Scheduler {
    /** A monotonic clock in milliseconds (not wall time). */
    long now();

    /** Runs {@code task} once after {@code delayMillis}. */
    Cancellable schedule(Runnable task, long delayMillis);

    /** Stops the scheduler; tasks not run yet are dropped. */
    default void shutdown() {
    }

    /** A scheduled task that can be cancelled. */
    @FunctionalInterface
    interface Cancellable {
        /** @return whether the task was cancelled before it ran */
        boolean cancel();
    }

    /** A scheduler on one daemon thread named {@code name}, on {@link System#nanoTime()}. */
    static Scheduler newSystemScheduler(String name) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return new Scheduler() {
            @Override
            public long now() {
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
            }

            @Override
            public Cancellable schedule(Runnable task, long delayMillis) {
                ScheduledFuture<?> future = executor.schedule(task, Math.max(0, delayMillis), TimeUnit.MILLISECONDS);
                return () -> future.cancel(false);
            }

            @Override
            public void shutdown() {
                executor.shutdownNow();
            }

            @Override
            public String toString() {
                return "SystemScheduler[" + name + "]";
            }
        };
    }
}
