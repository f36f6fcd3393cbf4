package io.bayeux.transport.internal;

import io.netty.util.concurrent.EventExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 * <p>Tasks are added from any thread; slots run on the loop. A slot's tasks are a lock-free
 * list, closed when the slot runs; the map of slots is guarded by this object's monitor, never
 * held while a task runs, and not taken by a task that joins the slot last made.
 */
public final class GroupedTimers {
    private static final Logger LOG = LoggerFactory.getLogger(GroupedTimers.class);
    /** The end of a slot's list once the slot ran. */
    private static final Node RAN = new Node(() -> { });

    private final EventExecutor loop;
    /** The slots waiting for their loop timer, by their time (loop ticker nanos). Guarded by this. */
    private final Map<Long, Slot> slots = new HashMap<>();
    /**
     * The slot last made: under load most tasks join it, with no lock and no look-up. A slot
     * that already ran refuses tasks (they then go the locked way).
     */
    private volatile Slot latest;
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
        Slot slot = latest;
        if (slot != null && slot.due == due && slot.add(task)) {
            return true;
        }
        synchronized (this) {
            slot = slots.get(due);
            if (slot != null && slot.add(task)) {
                return true;
            }
            slot = new Slot(due);
            slot.add(task);
            slots.put(due, slot);
            latest = slot;
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
                if (latest == slot) {
                    latest = null;
                }
            }
            slot.close();
            return false;
        }
    }

    /** The loop timers handed to the loop so far: one per slot that got a task. */
    public synchronized long timersHandedToLoop() {
        return timers;
    }

    /** The tasks due at one point of the grid. */
    private final class Slot implements Runnable {
        private static final VarHandle HEAD;

        static {
            try {
                HEAD = MethodHandles.lookup().findVarHandle(Slot.class, "head", Node.class);
            } catch (ReflectiveOperationException x) {
                throw new ExceptionInInitializerError(x);
            }
        }

        private final long due;
        /** The tasks added, the last first; {@link #RAN} once the slot ran (it takes no more). */
        @SuppressWarnings("unused")
        private volatile Node head;

        Slot(long due) {
            this.due = due;
        }

        /** @return false when the slot already ran */
        boolean add(Runnable task) {
            Node node = new Node(task);
            for (Node current = head; current != RAN; current = head) {
                node.next = current;
                if (HEAD.compareAndSet(this, current, node)) {
                    return true;
                }
            }
            return false;
        }

        /** Takes no more tasks. @return the tasks it had, the last first */
        Node close() {
            return (Node) HEAD.getAndSet(this, RAN);
        }

        @Override
        public void run() {
            synchronized (GroupedTimers.this) {
                slots.remove(due, this);
            }
            Node last = close();
            // Added the last first: in the order they came, the list reversed.
            Node first = null;
            while (last != null) {
                Node next = last.next;
                last.next = first;
                first = last;
                last = next;
            }
            for (Node node = first; node != null; node = node.next) {
                try {
                    node.task.run();
                } catch (RuntimeException x) {
                    LOG.warn("A grouped timer task failed: {}", node.task, x);
                }
            }
        }
    }

    /** A task in a slot's list. */
    private static final class Node {
        final Runnable task;
        Node next;

        Node(Runnable task) {
            this.task = task;
        }
    }
}
