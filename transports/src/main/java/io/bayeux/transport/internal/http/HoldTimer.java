package io.bayeux.transport.internal.http;

import io.bayeux.transport.internal.GroupedTimers;
import io.netty.util.concurrent.EventExecutor;

import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The timer of the {@code /meta/connect}s one HTTP connection holds, one after the other: one
 * event-loop timer serves them all. A hold is noted with its deadline; the loop's timer, when
 * it fires, ends the hold whose deadline came or waits again for what the current hold has
 * left, and lapses when there is none. A connection long-polls every few milliseconds under
 * load, each hold as long as the one before, so a new hold nearly always finds a timer that
 * fires before its deadline: it then costs no task handed to the loop (no wake-up of a
 * sleeping loop), no entry in the loop's timer queue and no removal when it ends early; the
 * loop is handed a timer only when none would fire in time (the first hold, or one shorter
 * than the last).
 *
 * <p>Holds are noted from any thread (the executor, where the core handles a connect) and
 * cancelled from any thread; the timer fires on the loop. State guarded by this object's
 * monitor, never held while a hold's task runs.
 */
final class HoldTimer {
    private final EventExecutor loop;
    /** The loop's timers that may run a little late (see {@link #scheduleGrouped}). */
    private final GroupedTimers grouped;
    /** The current hold, or null. Guarded by this. */
    private Hold hold;
    /**
     * When the earliest of the timers handed to the loop fires (loop ticker nanos), or
     * {@link Long#MAX_VALUE} when none is known to be pending. Guarded by this. Never later than
     * a pending timer: a hold that ends before it hands the loop a timer of its own.
     */
    private long timerDeadline = Long.MAX_VALUE;
    /** The timers handed to the loop by holds so far. Guarded by this. */
    private long timers;

    HoldTimer(EventExecutor loop, GroupedTimers grouped) {
        this.loop = loop;
        this.grouped = grouped;
    }

    /**
     * Runs {@code task} on the loop after {@code delayMillis}, at most {@code slackMillis} late,
     * with the other tasks of the loop due about then (see {@link GroupedTimers}); not cancelled.
     *
     * @return false when the loop is shutting down
     */
    boolean scheduleGrouped(Runnable task, long delayMillis, long slackMillis) {
        return grouped.schedule(task, delayMillis, slackMillis);
    }

    /**
     * Runs {@code task} on the loop after {@code delayMillis}, unless cancelled first.
     *
     * @return the hold, to cancel; null when the loop is shutting down
     */
    Future<?> schedule(Runnable task, long delayMillis) {
        long delayNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, delayMillis));
        long deadline = loop.ticker().nanoTime() + delayNanos;
        Hold next = new Hold(task, deadline);
        boolean arm = false;
        synchronized (this) {
            if (hold == null) {
                hold = next;
                if (deadline < timerDeadline) {
                    timerDeadline = deadline;
                    timers++;
                    arm = true;
                }
            } else {
                next = null;
            }
        }
        if (next == null) {
            // A second hold at once on this connection (pipelined requests): a timer of its own.
            try {
                return loop.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException x) {
                return null;
            }
        }
        if (!arm) {
            return next;
        }
        try {
            loop.schedule(this::fire, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException x) {
            synchronized (this) {
                if (hold == next) {
                    hold = null;
                }
                timerDeadline = Long.MAX_VALUE;
            }
            return null;
        }
        return next;
    }

    /** On the loop: a timer fired. */
    private void fire() {
        Runnable due;
        synchronized (this) {
            // Another, later timer may still be pending: forgetting it only makes the next hold hand the loop one more.
            timerDeadline = Long.MAX_VALUE;
            Hold current = hold;
            if (current == null) {
                return;
            }
            long left = current.deadline - loop.ticker().nanoTime();
            if (left > 0) {
                timerDeadline = current.deadline;
                loop.schedule(this::fire, left, TimeUnit.NANOSECONDS);
                return;
            }
            hold = null;
            current.state = Hold.RAN;
            due = current.task;
        }
        due.run();
    }

    /** The timers holds handed to the loop so far (not counting those that waited again). */
    synchronized long timersHandedToLoop() {
        return timers;
    }

    /** Whether {@code hold} is still waiting (for tests). */
    synchronized boolean isPending(Future<?> hold) {
        return this.hold == hold;
    }

    /** One held connect's timeout: a {@link Future} only to be cancelled. */
    private final class Hold implements Future<Object> {
        static final int WAITING = 0;
        static final int RAN = 1;
        static final int CANCELLED = 2;
        final Runnable task;
        final long deadline;
        /** Guarded by the timer's monitor. */
        int state;

        Hold(Runnable task, long deadline) {
            this.task = task;
            this.deadline = deadline;
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            synchronized (HoldTimer.this) {
                if (state != WAITING) {
                    return false;
                }
                state = CANCELLED;
                if (hold == this) {
                    hold = null;
                }
                return true;
            }
        }

        @Override
        public boolean isCancelled() {
            synchronized (HoldTimer.this) {
                return state == CANCELLED;
            }
        }

        @Override
        public boolean isDone() {
            synchronized (HoldTimer.this) {
                return state != WAITING;
            }
        }

        @Override
        public Object get() {
            throw new UnsupportedOperationException("A hold's timer is only cancelled");
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException("A hold's timer is only cancelled");
        }
    }
}
