package io.bayeux.transport.internal;

import io.bayeux.transport.ServerSettings;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The executor a server runs message handling and application listeners on, and whether the
 * server made it (and so shuts it down when it stops).
 *
 * @param executor the executor
 * @param owned    whether the server made it: false for one given to the builder, the caller's to shut down
 */
public record ApplicationExecutor(ExecutorService executor, boolean owned) {
    /**
     * The executor given, else virtual threads ({@code bayeux-vt-*}) when asked for, else a bounded
     * pool of {@code threads} daemon threads ({@code bayeux-app-*}) with a queue of
     * {@value ServerSettings#DEFAULT_EXECUTOR_QUEUE} tasks, whose threads end after a minute idle.
     */
    public static ApplicationExecutor of(ExecutorService given, boolean virtualThreads, int threads) {
        if (given != null) {
            return new ApplicationExecutor(given, false);
        }
        if (virtualThreads) {
            return new ApplicationExecutor(Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("bayeux-vt-", 0).factory()), true);
        }
        AtomicInteger ids = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(ServerSettings.DEFAULT_EXECUTOR_QUEUE), task -> {
                    Thread thread = new Thread(task, "bayeux-app-" + ids.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        pool.allowCoreThreadTimeOut(true);
        return new ApplicationExecutor(pool, true);
    }

    /** Stops the executor if the server made it; one given to the builder is left running. */
    public void shutdown() {
        if (owned) {
            executor.shutdownNow();
        }
    }
}
