package io.bayeux.transport.internal.http;

import io.bayeux.transport.internal.GroupedTimers;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The holds of one connection on one loop timer, on an embedded loop whose time stands still until advanced. */
class HoldTimerTest {
    private EmbeddedChannel channel;
    private HoldTimer timer;
    private final List<String> ran = new ArrayList<>();

    @BeforeEach
    void setUp() {
        channel = new EmbeddedChannel();
        channel.freezeTime();
        timer = new HoldTimer(channel.eventLoop(), new GroupedTimers(channel.eventLoop()));
    }

    @AfterEach
    void tearDown() {
        channel.finishAndReleaseAll();
    }

    @Test
    void aHoldRunsItsTaskAtItsDeadlineAndNotBefore() {
        Future<?> hold = timer.schedule(() -> ran.add("a"), 20_000);
        advance(19_999);
        assertEquals(List.of(), ran);
        advance(1);
        assertEquals(List.of("a"), ran);
        assertTrue(hold.isDone());
        assertFalse(hold.cancel(false), "a hold that ran cannot be cancelled");
    }

    @Test
    void aCancelledHoldNeverRuns() {
        Future<?> hold = timer.schedule(() -> ran.add("a"), 1_000);
        assertTrue(hold.cancel(false));
        assertTrue(hold.isCancelled());
        assertFalse(timer.isPending(hold));
        advance(5_000);
        assertEquals(List.of(), ran);
    }

    @Test
    void holdsOneAfterTheOtherShareOneLoopTimerAndEachRunsAtItsOwnDeadline() {
        // Hold 1 hands the loop a timer; holds 2 to 5, as long and later, find it pending.
        Future<?> hold = timer.schedule(() -> ran.add("1"), 20_000);
        for (int i = 2; i <= 5; i++) {
            advance(100);
            assertTrue(hold.cancel(false));
            String name = String.valueOf(i);
            hold = timer.schedule(() -> ran.add(name), 20_000);
        }
        assertEquals(1, timer.timersHandedToLoop());
        // The loop's timer fires at hold 1's deadline, finds hold 5 with time left and waits again.
        advance(20_000 - 400 - 1);
        assertEquals(List.of(), ran);
        advance(1);
        assertEquals(List.of(), ran, "hold 1's deadline: hold 5 started 400 ms later");
        advance(399);
        assertEquals(List.of(), ran);
        advance(1);
        assertEquals(List.of("5"), ran);
        // With nothing held, the timer lapses; the next hold hands the loop a timer again.
        advance(60_000);
        assertEquals(List.of("5"), ran);
        assertEquals(1, timer.timersHandedToLoop());
        timer.schedule(() -> ran.add("6"), 20_000);
        assertEquals(2, timer.timersHandedToLoop());
        advance(20_000);
        assertEquals(List.of("5", "6"), ran);
    }

    @Test
    void aShorterHoldThanThePendingTimerGetsATimerOfItsOwn() {
        Future<?> longHold = timer.schedule(() -> ran.add("long"), 20_000);
        assertTrue(longHold.cancel(false));
        timer.schedule(() -> ran.add("short"), 1_000);
        advance(1_000);
        assertEquals(List.of("short"), ran);
        // The long hold's timer still fires later, and finds nothing to do.
        advance(20_000);
        assertEquals(List.of("short"), ran);
    }

    @Test
    void aSecondHoldWhileOneIsCurrentIsTimedOnItsOwn() {
        Future<?> first = timer.schedule(() -> ran.add("first"), 2_000);
        Future<?> second = timer.schedule(() -> ran.add("second"), 1_000);
        assertNotNull(second);
        advance(1_000);
        assertEquals(List.of("second"), ran);
        advance(1_000);
        assertEquals(List.of("second", "first"), ran);
        assertTrue(first.isDone());
    }

    @Test
    void aHoldNotedFromAnotherThreadRunsOnTheLoop() throws Exception {
        List<Thread> threads = new ArrayList<>();
        Thread noter = new Thread(() -> timer.schedule(() -> threads.add(Thread.currentThread()), 500));
        noter.start();
        noter.join(TimeUnit.SECONDS.toMillis(10));
        advance(500);
        assertEquals(List.of(Thread.currentThread()), threads, "the embedded loop runs its tasks on the test's thread");
    }

    private void advance(long millis) {
        channel.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        channel.runPendingTasks();
        channel.runScheduledPendingTasks();
    }
}
