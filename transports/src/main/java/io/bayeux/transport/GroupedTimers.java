package io.bayeux.transport;

import io.netty.util.concurrent.EventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The timers of one event loop that may run a little late: each task goes into the slot of
 * the first point at or after its deadline on a grid of its slack (a multiple of the slack on
 * the loop's clock), and one loop timer per slot runs all of the slot's tasks, in the order
 * they came. Long-polling's gather timers, one per reply under load (thousands a second per
 * loop), then wake a loop at most once per slot instead of once each, and take no entry in
 * the loop's timer queue. Their replies go out together, so the clients' next requests tend
 * to arrive together too, and one wake-up of the loop reads several.
 *
 * <p>A task runs at most its slack late (and as late as the loop is busy). It cannot be
 * cancelled: it is meant for work that checks, when it runs, whether it is still due.
 *
 * <p>Tasks are added from any thread; slots run on the loop. State guarded by this object's
 * monitor, never held while a task runs.
 */
public final class GroupedTimers {
    private static final Logger LOG = LoggerFactory.getLogger(GroupedTimers.class);

    private final EventExecutor loop;
    /** The slots waiting for their loop timer, by their time (loop ticker nanos). Guarded by this. */
    private final Map<Long, Slot> slots = new HashMap<>();
    /** The loop timers handed to the loop so far, one per slot. Guarded by this. */
    private long timers;

    public GroupedTimers(EventExecutor loop) {
        this.loop = loop;
    }

    /**
     * Runs {@code task} on the loop after {@code delayMillis}, and at most {@code slackMillis}
     * later, with every other task due in the same slot.
     *
     * @param slackMillis how late it may run; at least 1 ms is used
     * @return false when the loop is shutting down and took no timer: the task will not run
     */
    public boolean schedule(Runnable task, long delayMillis, long slackMillis) {
        long grid = TimeUnit.MILLISECONDS.toNanos(Math.max(1, slackMillis));
        long now = loop.ticker().nanoTime();
        long due = Math.ceilDiv(now + TimeUnit.MILLISECONDS.toNanos(Math.max(0, delayMillis)), grid) * grid;
        Slot slot;
        synchronized (this) {
            slot = slots.get(due);
            if (slot != null) {
                slot.tasks.add(task);
                return true;
            }
            slot = new Slot(due);
            slot.tasks.add(task);
            slots.put(due, slot);
            timers++;
        }
        try {
            loop.schedule(slot, due - now, TimeUnit.NANOSECONDS);
            return true;
        } catch (RejectedExecutionException x) {
            // Tasks that joined the slot meanwhile are lost with it: the loop is going away with
            // its connections, whose held requests end as they close.
            synchronized (this) {
                slots.remove(due, slot);
                timers--;
            }
            return false;
        }
    }

    /** The loop timers handed to the loop so far: one per slot that got a task. */
    public synchronized long timersHandedToLoop() {
        return timers;
    }

    /** The tasks due at one point of the grid. */
    private final class Slot implements Runnable {
        private final long due;
        /** Guarded by the GroupedTimers' monitor until the slot leaves the map, then loop-confined. */
        private final ArrayList<Runnable> tasks = new ArrayList<>(4);

        Slot(long due) {
            this.due = due;
        }

        @Override
        public void run() {
            synchronized (GroupedTimers.this) {
                slots.remove(due, this);
            }
            for (int i = 0, n = tasks.size(); i < n; i++) {
                try {
                    tasks.get(i).run();
                } catch (RuntimeException x) {
                    LOG.warn("A grouped timer task failed: {}", tasks.get(i), x);
                }
            }
        }
    }
}
