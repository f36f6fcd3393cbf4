package io.bayeux.transport.internal;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One loop's grouped timers, on an embedded loop whose time stands still until advanced. */
class GroupedTimersTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private EmbeddedChannel channel;
    private GroupedTimers timers;
    private final List<String> ran = new ArrayList<>();

    @BeforeEach
    void setUp() {
        channel = new EmbeddedChannel();
        channel.freezeTime();
        timers = new GroupedTimers(channel.eventLoop());
        // On the grid of 5 ms, 1 ms past a point: the next point is 4 ms away.
        long now = channel.eventLoop().ticker().nanoTime();
        advanceNanos(Math.floorMod(MS - now, 5 * MS));
    }

    @AfterEach
    void tearDown() {
        channel.finishAndReleaseAll();
    }

    @Test
    void tasksDueInOneSlotShareOneLoopTimerAndRunTogetherInTheOrderTheyCame() {
        // Due in 95, 97 and 98 ms: all in the slot at 99 ms (the grid point at or after 98).
        assertTrue(timers.schedule(() -> ran.add("a"), 97, 5));
        advance(1);
        assertTrue(timers.schedule(() -> ran.add("b"), 97, 5));
        assertTrue(timers.schedule(() -> ran.add("c"), 94, 5));
        assertEquals(1, timers.timersHandedToLoop());
        advance(97);
        assertEquals(List.of(), ran, "98 ms after the first: the slot's time has not come");
        advance(1);
        assertEquals(List.of("a", "b", "c"), ran);
    }

    @Test
    void aTaskNeverRunsBeforeItsDelayNorLaterThanItsSlack() {
        // Due in 11 ms, 1 ms past a grid point of 5 ms: the slot is at 14 ms, 3 ms late.
        timers.schedule(() -> ran.add("a"), 11, 5);
        advance(10);
        assertEquals(List.of(), ran);
        advance(3);
        assertEquals(List.of(), ran);
        advance(1);
        assertEquals(List.of("a"), ran);
        // Due exactly on a grid point (now 15 ms, due 19): not late at all.
        advance(1);
        timers.schedule(() -> ran.add("b"), 4, 5);
        advance(3);
        assertEquals(List.of("a"), ran);
        advance(1);
        assertEquals(List.of("a", "b"), ran);
    }

    @Test
    void tasksDueInDifferentSlotsRunEachAtItsOwn() {
        timers.schedule(() -> ran.add("a"), 3, 5);
        timers.schedule(() -> ran.add("b"), 5, 5);
        timers.schedule(() -> ran.add("c"), 20, 5);
        assertEquals(3, timers.timersHandedToLoop(), "slots at 4, 9 and 24 ms");
        advance(4);
        assertEquals(List.of("a"), ran);
        advance(5);
        assertEquals(List.of("a", "b"), ran);
        advance(15);
        assertEquals(List.of("a", "b", "c"), ran);
    }

    @Test
    void aSlotThatRanIsNotJoinedAgain() {
        timers.schedule(() -> ran.add("a"), 4, 5);
        advance(4);
        assertEquals(List.of("a"), ran);
        // Its time is now: a new task due now gets a slot (and a timer) of its own, and runs.
        timers.schedule(() -> ran.add("b"), 0, 5);
        assertEquals(2, timers.timersHandedToLoop());
        channel.runPendingTasks();
        channel.runScheduledPendingTasks();
        assertEquals(List.of("a", "b"), ran);
    }

    @Test
    void aTaskThatThrowsDoesNotKeepTheOthersOfItsSlotFromRunning() {
        timers.schedule(() -> ran.add("a"), 4, 5);
        timers.schedule(() -> {
            throw new IllegalStateException("expected by the test");
        }, 4, 5);
        timers.schedule(() -> ran.add("c"), 4, 5);
        advance(4);
        assertEquals(List.of("a", "c"), ran);
    }

    @Test
    void aLoopThatIsShuttingDownTakesNoTask() throws Exception {
        DefaultEventLoop loop = new DefaultEventLoop();
        loop.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).sync();
        GroupedTimers closed = new GroupedTimers(loop);
        assertFalse(closed.schedule(() -> ran.add("a"), 10, 5));
        // The slot it would have had is gone: the next task tries the loop again.
        assertFalse(closed.schedule(() -> ran.add("b"), 10, 5));
        assertEquals(0, closed.timersHandedToLoop());
    }

    @Test
    void tasksAddedFromSeveralThreadsWhileSlotsRunEachRunOnceOnTheLoop() throws Exception {
        DefaultEventLoop loop = new DefaultEventLoop();
        try {
            GroupedTimers live = new GroupedTimers(loop);
            int threads = 4;
            int perThread = 5_000;
            AtomicIntegerArray runs = new AtomicIntegerArray(threads * perThread);
            AtomicInteger offLoop = new AtomicInteger();
            CountDownLatch all = new CountDownLatch(threads * perThread);
            List<Thread> adders = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int first = t * perThread;
                Thread adder = new Thread(() -> {
                    for (int i = first; i < first + perThread; i++) {
                        int index = i;
                        // Delays of 0 to 2 ms on a grid of 1 ms: slots fill as earlier ones run.
                        assertTrue(live.schedule(() -> {
                            if (!loop.inEventLoop()) {
                                offLoop.incrementAndGet();
                            }
                            runs.incrementAndGet(index);
                            all.countDown();
                        }, index % 3, 1));
                    }
                });
                adders.add(adder);
                adder.start();
            }
            for (Thread adder : adders) {
                adder.join(TimeUnit.SECONDS.toMillis(30));
            }
            assertTrue(all.await(30, TimeUnit.SECONDS), all.getCount() + " tasks never ran");
            for (int i = 0; i < runs.length(); i++) {
                assertEquals(1, runs.get(i), "runs of task " + i);
            }
            assertEquals(0, offLoop.get(), "tasks run off the loop");
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS).sync();
        }
    }

    private void advance(long millis) {
        advanceNanos(millis * MS);
    }

    private void advanceNanos(long nanos) {
        channel.advanceTimeBy(nanos, TimeUnit.NANOSECONDS);
        channel.runPendingTasks();
        channel.runScheduledPendingTasks();
    }
}
