package io.bayeux.oort;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The one thread of a started {@link Oort} where its links are managed ({@link OortLinks} is
 * confined to it) and its {@link CometListener}s run: tasks run one at a time, in the order
 * posted. One per start; thread-safe. A task that throws is logged and the next one runs.
 */
final class OortActor {
    /** The longest {@link #call} waits for its task: 10 s. */
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);
    private static final Logger LOG = LoggerFactory.getLogger(OortActor.class);

    private final ScheduledExecutorService executor;
    /** Set once, by the executor's thread factory, before the first task runs. */
    private volatile Thread thread;

    OortActor(String name) {
        executor = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread t = daemon(task, name);
            thread = t;
            return t;
        });
    }

    static Thread daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    /** Runs {@code task} later; dropped (and logged at debug) once shut down. */
    void post(Runnable task) {
        try {
            executor.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException x) {
                    LOG.warn("Oort task failed", x);
                }
            });
        } catch (RejectedExecutionException x) {
            LOG.debug("Stopped: task dropped");
        }
    }

    /** Runs {@code task} every {@code periodMillis}, the first time after one period, until shut down. */
    void every(long periodMillis, Runnable task) {
        executor.scheduleWithFixedDelay(task, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    /**
     * Runs {@code task} and waits for its result, at most {@link #CALL_TIMEOUT}; on the actor's
     * own thread (from a task or a listener), runs it there and then.
     *
     * @throws IllegalStateException when shut down, interrupted or out of time
     */
    <T> T call(Callable<T> task, Object owner) {
        if (executor.isShutdown()) {
            throw new IllegalStateException("Not started: " + owner);
        }
        if (Thread.currentThread() == thread) {
            try {
                return task.call();
            } catch (RuntimeException x) {
                throw x;
            } catch (Exception x) {
                throw new IllegalStateException(x);
            }
        }
        Future<T> future;
        try {
            future = executor.submit(task);
        } catch (RejectedExecutionException x) {
            throw new IllegalStateException("Not started: " + owner, x);
        }
        try {
            return future.get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", x);
        } catch (ExecutionException x) {
            if (x.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(x.getCause());
        } catch (TimeoutException x) {
            throw new IllegalStateException("The Oort thread did not answer in " + CALL_TIMEOUT.toSeconds() + " s", x);
        }
    }

    /** Stops at once: tasks still queued never run. */
    void shutdown() {
        executor.shutdownNow();
    }
}
