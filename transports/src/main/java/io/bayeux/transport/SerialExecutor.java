package io.bayeux.transport;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs tasks one after the other, in submission order, on a shared executor: what arrives on
 * one WebSocket connection is handled in order without holding a thread per connection.
 * Thread-safe; the queue is guarded by {@code this}.
 */
public final class SerialExecutor implements Executor {
    private final Executor executor;
    /** Guarded by this. */
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>(2);
    /** Guarded by this. */
    private boolean running;

    public SerialExecutor(Executor executor) {
        this.executor = executor;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (this) {
            tasks.add(task);
            if (running) {
                return;
            }
            running = true;
        }
        try {
            executor.execute(this::drain);
        } catch (RejectedExecutionException x) {
            synchronized (this) {
                tasks.clear();
                running = false;
            }
            throw x;
        }
    }

    private void drain() {
        while (true) {
            Runnable task;
            synchronized (this) {
                task = tasks.poll();
                if (task == null) {
                    running = false;
                    return;
                }
            }
            task.run();
        }
    }
}
