package io.bayeux.transport;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs tasks one after the other, in submission order, on a shared executor: what arrives on
 * one WebSocket connection is handled in order without holding a thread per connection.
 * Thread-safe; the queue is guarded by {@code this}. The queue is one field while at most one
 * task waits (as on most connections, most of the time), a deque only while more do.
 */
public final class SerialExecutor implements Executor {
    private final Executor executor;
    /** The oldest waiting task while {@link #more} is empty, or null. Guarded by this. */
    private Runnable next;
    /** The tasks after {@link #next}, made when two wait at once. Guarded by this. */
    private ArrayDeque<Runnable> more;
    /** Guarded by this. */
    private boolean running;

    public SerialExecutor(Executor executor) {
        this.executor = executor;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (this) {
            add(task);
            if (running) {
                return;
            }
            running = true;
        }
        try {
            executor.execute(this::drain);
        } catch (RejectedExecutionException x) {
            synchronized (this) {
                next = null;
                more = null;
                running = false;
            }
            throw x;
        }
    }

    private void drain() {
        while (true) {
            Runnable task;
            synchronized (this) {
                task = poll();
                if (task == null) {
                    running = false;
                    return;
                }
            }
            task.run();
        }
    }

    /** Guarded by this. */
    private void add(Runnable task) {
        if (next == null && (more == null || more.isEmpty())) {
            next = task;
        } else {
            if (more == null) {
                more = new ArrayDeque<>(4);
            }
            more.add(task);
        }
    }

    /** Guarded by this: the oldest waiting task, or null. */
    private Runnable poll() {
        Runnable task = next;
        if (task != null) {
            next = null;
            return task;
        }
        if (more == null) {
            return null;
        }
        task = more.poll();
        if (more.isEmpty()) {
            // A burst is over: an idle connection keeps no deque.
            more = null;
        }
        return task;
    }
}
