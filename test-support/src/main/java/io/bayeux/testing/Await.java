package io.bayeux.testing;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Bounded waits for the tests: the condition is polled, first every millisecond and then, while
 * it stays false, less often (up to every {@value #MAX_PAUSE_MILLIS} ms); past the timeout the
 * wait fails with an {@link AssertionError} that says what was awaited and the last state seen.
 *
 * <pre>{@code
 * Await.until(WAIT, () -> node.knownComets().equals(others), () -> node + " to know " + others);
 * Await.until(WAIT, () -> List.copyOf(received), r -> r.size() == 3, "three messages");
 * }</pre>
 *
 * <p>For what a test can only observe by looking (a size, a state); what has an event of its own
 * (a listener, a future, a latch) is better awaited on that event. Stateless and thread-safe.
 * An interrupted wait fails at once, with the thread's interrupt status kept.
 */
public final class Await {
    /** The longest pause between two polls. */
    static final long MAX_PAUSE_MILLIS = 25;

    private Await() {
    }

    /**
     * Returns once {@code condition} is true, or fails after {@code timeout}.
     *
     * @param whatWasExpected what was awaited and the state seen, asked for the failure's message
     *                        only (so it may show the state as it is by then)
     * @throws AssertionError when {@code condition} is still false after {@code timeout}, or the thread is interrupted
     */
    public static void until(Duration timeout, BooleanSupplier condition, Supplier<String> whatWasExpected) {
        Objects.requireNonNull(condition, "condition");
        Objects.requireNonNull(whatWasExpected, "whatWasExpected");
        Poll poll = new Poll(timeout, whatWasExpected);
        while (!condition.getAsBoolean()) {
            if (!poll.pause()) {
                throw new AssertionError("Timed out after " + timeout + " waiting for " + whatWasExpected.get());
            }
        }
    }

    /**
     * Returns the first value of {@code probe} that {@code accepted} takes, or fails after
     * {@code timeout} with {@code what} and the last value seen.
     *
     * @throws AssertionError when no value was accepted within {@code timeout}, or the thread is interrupted
     */
    public static <T> T until(Duration timeout, Supplier<T> probe, Predicate<? super T> accepted, String what) {
        Objects.requireNonNull(probe, "probe");
        Objects.requireNonNull(accepted, "accepted");
        Poll poll = new Poll(timeout, () -> what);
        for (;;) {
            T value = probe.get();
            if (accepted.test(value)) {
                return value;
            }
            if (!poll.pause()) {
                throw new AssertionError("Timed out after " + timeout + " waiting for " + what + "; last seen: " + value);
            }
        }
    }

    /** The deadline and the growing pause of one wait; confined to the waiting thread. */
    private static final class Poll {
        private final long deadline;
        private final Supplier<String> what;
        private long pauseNanos = TimeUnit.MILLISECONDS.toNanos(1);

        Poll(Duration timeout, Supplier<String> what) {
            if (timeout.isNegative()) {
                throw new IllegalArgumentException("timeout " + timeout + " < 0");
            }
            this.deadline = System.nanoTime() + timeout.toNanos();
            this.what = what;
        }

        /** Pauses before the next poll; false once the deadline has passed (the caller fails). */
        boolean pause() {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            LockSupport.parkNanos(Math.min(pauseNanos, left));
            if (Thread.currentThread().isInterrupted()) {
                throw new AssertionError("Interrupted while waiting for " + what.get());
            }
            pauseNanos = Math.min(pauseNanos * 2, TimeUnit.MILLISECONDS.toNanos(MAX_PAUSE_MILLIS));
            return true;
        }
    }
}
