package io.bayeux.transport.http;

import io.netty.channel.EventLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Hands the requests one event loop reads to the application executor in batches: what the loop
 * reads in one turn (every connection that had bytes) goes to the executor as one task, which
 * starts its requests in the order they arrived. A turn that reads a hundred long-polls wakes
 * executor threads a few times rather than a hundred times (a parked thread's wake-up is a
 * system call and a context switch, as costly as the request's own handling). A batch of two or
 * more asks the executor for one helper, which takes the batch's next requests while the first
 * thread is busy: a request whose application code blocks holds up its own thread, not the rest
 * of its batch. A long turn is cut into batches of {@value #BATCH_LIMIT}. The reverse of
 * {@link io.bayeux.transport.LoopOutbox}.
 *
 * <p>{@link #dispatch} is called on the loop; the collected batch is loop-confined.
 */
final class LoopDispatcher implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(LoopDispatcher.class);
    /** Requests in one executor task at most. */
    static final int BATCH_LIMIT = 16;

    /** A request to handle on the executor, which answers by itself when the executor refuses it. */
    interface Task extends Runnable {
        /** On the loop: the executor refused the task (overloaded or shut down). */
        void rejected();
    }

    private final EventLoop loop;
    private final Executor executor;
    /** The requests of the current turn, or null; loop-confined. */
    private List<Task> batch;
    /** Whether this dispatcher's end-of-turn task is queued on the loop; loop-confined. */
    private boolean scheduled;

    private LoopDispatcher(EventLoop loop, Executor executor) {
        this.loop = loop;
        this.executor = executor;
    }

    /** The dispatchers of one server's event loops. Thread-safe. */
    static final class Registry {
        private final Map<EventLoop, LoopDispatcher> dispatchers = new ConcurrentHashMap<>();
        private final Executor executor;

        Registry(Executor executor) {
            this.executor = executor;
        }

        /** The dispatcher of {@code loop}. */
        LoopDispatcher of(EventLoop loop) {
            LoopDispatcher dispatcher = dispatchers.get(loop);
            return dispatcher != null ? dispatcher : dispatchers.computeIfAbsent(loop, l -> new LoopDispatcher(l, executor));
        }
    }

    /**
     * On the loop: hands {@code task} to the executor at the end of this turn of the loop, with
     * the other requests read in it.
     */
    void dispatch(Task task) {
        List<Task> tasks = batch;
        if (tasks == null) {
            tasks = new ArrayList<>(8);
            batch = tasks;
        }
        tasks.add(task);
        if (tasks.size() >= BATCH_LIMIT) {
            submit();
        } else if (!scheduled) {
            scheduled = true;
            try {
                // From the loop itself: queued after this turn's reads, no wake-up.
                loop.execute(this);
            } catch (RejectedExecutionException x) {
                // The loop is shutting down: hand the batch over now.
                scheduled = false;
                submit();
            }
        }
    }

    /** The end of the loop's turn: the batch goes to the executor. */
    @Override
    public void run() {
        scheduled = false;
        submit();
    }

    private void submit() {
        List<Task> tasks = batch;
        if (tasks == null) {
            return;
        }
        batch = null;
        try {
            executor.execute(tasks.size() == 1 ? tasks.get(0) : new Batch(tasks, executor));
        } catch (RejectedExecutionException x) {
            for (Task task : tasks) {
                task.rejected();
            }
        }
    }

    /**
     * On the executor: the requests of one turn, taken in order by the thread that runs it and by
     * the one helper it asks for; one that throws does not stop the others.
     */
    private static final class Batch implements Runnable {
        private final List<Task> tasks;
        private final Executor executor;
        private final AtomicInteger next = new AtomicInteger();
        private final AtomicBoolean helped = new AtomicBoolean();

        Batch(List<Task> tasks, Executor executor) {
            this.tasks = tasks;
            this.executor = executor;
        }

        @Override
        public void run() {
            int size = tasks.size();
            int i;
            while ((i = next.getAndIncrement()) < size) {
                if (i + 1 < size && !helped.get() && helped.compareAndSet(false, true)) {
                    try {
                        executor.execute(this);
                    } catch (RejectedExecutionException x) {
                        // This thread does them all.
                    }
                }
                Task task = tasks.get(i);
                try {
                    task.run();
                } catch (RuntimeException x) {
                    LOG.warn("Request {} failed", task, x);
                }
            }
        }

        @Override
        public String toString() {
            return "Batch[" + tasks.size() + " requests, next " + next.get() + "]";
        }
    }

    @Override
    public String toString() {
        return "LoopDispatcher[" + loop + "]";
    }
}
