package io.bayeux.server.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Whether the server is behind delivering, and what waits for it to catch up. A session counts
 * as one the server is behind with while its reader keeps reading but half its queue or more
 * waits (see {@link SessionOutbox}); transports then stop reading the connections that publish,
 * so that TCP slows the publishers down instead of letting the readers' queues overflow, and
 * read them again when {@link #whenCaughtUp} runs their task.
 *
 * <p>Thread-safe and lock-free: a counter and a concurrent queue of tasks.
 */
final class Backpressure {
    private static final Logger LOG = LoggerFactory.getLogger(Backpressure.class);

    /** Sessions that keep reading but have half their queue or more waiting. */
    private final AtomicInteger behindSessions = new AtomicInteger();
    private final Queue<Runnable> caughtUpTasks = new ConcurrentLinkedQueue<>();

    /** Whether some session whose connection keeps taking bytes has {@code maxQueue / 2} messages or more waiting. */
    boolean isBehind() {
        return behindSessions.get() > 0;
    }

    /**
     * Runs {@code task} once the server is no longer {@linkplain #isBehind() behind}: at once
     * when it is not, otherwise on the thread that delivers the last late message.
     */
    void whenCaughtUp(Runnable task) {
        caughtUpTasks.add(task);
        if (behindSessions.get() == 0) {
            runCaughtUpTasks();
        }
    }

    /** A session started, or stopped, counting as one the server is behind with. */
    void behind(boolean started) {
        if (started) {
            behindSessions.incrementAndGet();
        } else if (behindSessions.decrementAndGet() == 0) {
            runCaughtUpTasks();
        }
    }

    private void runCaughtUpTasks() {
        Runnable task;
        while ((task = caughtUpTasks.poll()) != null) {
            try {
                task.run();
            } catch (RuntimeException x) {
                LOG.warn("Task {} run when deliveries caught up failed", task, x);
            }
        }
    }

    @Override
    public String toString() {
        return "Backpressure[behind=" + behindSessions.get() + ", waiting=" + caughtUpTasks.size() + "]";
    }
}
