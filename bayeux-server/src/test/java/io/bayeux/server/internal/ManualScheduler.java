package io.bayeux.server.internal;

import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/** A {@link Scheduler} whose time moves only when a test calls {@link #advance(long)}. */
public final class ManualScheduler implements Scheduler {
    private final PriorityQueue<Task> tasks = new PriorityQueue<>();
    private long now = 1_000_000;
    private long sequence;

    /**
     * A server configuration on this scheduler, with {@code connectGather} off: a held connect
     * is answered as soon as a message comes, as most tests expect without moving time
     * ({@code ConnectGatherTest} covers the gathering).
     */
    public BayeuxServerConfig.Builder config() {
        return BayeuxServerConfig.builder().scheduler(this).connectGather(Duration.ZERO);
    }

    @Override
    public synchronized long now() {
        return now;
    }

    @Override
    public synchronized Cancellable schedule(Runnable task, long delayMillis) {
        Task t = new Task(now + Math.max(0, delayMillis), sequence++, task);
        tasks.add(t);
        return () -> {
            synchronized (ManualScheduler.this) {
                return tasks.remove(t);
            }
        };
    }

    /** Moves time forward, running every task that falls due, in order, on the calling thread. */
    public void advance(long millis) {
        long target;
        synchronized (this) {
            target = now + millis;
        }
        while (true) {
            Task next;
            synchronized (this) {
                next = tasks.peek();
                if (next == null || next.at > target) {
                    now = target;
                    return;
                }
                tasks.poll();
                now = Math.max(now, next.at);
            }
            next.task.run();
        }
    }

    /** The number of tasks waiting. */
    public synchronized int pending() {
        return tasks.size();
    }

    synchronized List<Long> dueTimes() {
        List<Long> result = new ArrayList<>();
        for (Task task : tasks) {
            result.add(task.at);
        }
        return result;
    }

    private record Task(long at, long seq, Runnable task) implements Comparable<Task> {
        @Override
        public int compareTo(Task other) {
            int c = Long.compare(at, other.at);
            return c != 0 ? c : Long.compare(seq, other.seq);
        }
    }
}
