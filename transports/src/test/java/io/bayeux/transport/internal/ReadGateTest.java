package io.bayeux.transport.internal;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reading stops and resumes as the reasons say, applied on the loop in the order asked; a
 * change decided from a count that moved on meanwhile is applied only if it still holds.
 */
class ReadGateTest {
    @Test
    void aResumeQueuedBeforeItsPauseLeavesTheConnectionReadWhenThePauseNoLongerHolds() {
        EmbeddedChannel channel = new EmbeddedChannel();
        AtomicInteger inFlight = new AtomicInteger(32);
        // The reader counted 32 frames in flight, but is slow to queue its pause: the executor
        // drains them to 8 and queues its resume first.
        inFlight.set(8);
        ReadGate.resumeIf(channel, ReadGate.BACKLOG, () -> inFlight.get() <= 8);
        ReadGate.pauseIf(channel, ReadGate.BACKLOG, () -> inFlight.get() > 8);
        channel.runPendingTasks();
        assertTrue(channel.config().isAutoRead(), "not left unread with nothing left to resume it");
        assertFalse(ReadGate.isPaused(channel, ReadGate.BACKLOG));
        channel.finishAndReleaseAll();
    }

    @Test
    void aPauseThatStillHoldsStopsReadingUntilItsResume() {
        EmbeddedChannel channel = new EmbeddedChannel();
        AtomicInteger inFlight = new AtomicInteger(32);
        ReadGate.pauseIf(channel, ReadGate.BACKLOG, () -> inFlight.get() > 8);
        channel.runPendingTasks();
        assertFalse(channel.config().isAutoRead());
        ReadGate.pause(channel, ReadGate.OVERLOAD);
        inFlight.set(8);
        ReadGate.resumeIf(channel, ReadGate.BACKLOG, () -> inFlight.get() <= 8);
        channel.runPendingTasks();
        assertFalse(channel.config().isAutoRead(), "the overload still holds");
        ReadGate.resume(channel, ReadGate.OVERLOAD);
        channel.runPendingTasks();
        assertTrue(channel.config().isAutoRead());
        channel.finishAndReleaseAll();
    }

    @Test
    void plainChangesApplyInTheOrderAsked() {
        EmbeddedChannel channel = new EmbeddedChannel();
        ReadGate.resume(channel, ReadGate.BACKLOG);
        ReadGate.pause(channel, ReadGate.BACKLOG);
        channel.runPendingTasks();
        // Unconditional: the late pause wins, which is why counted reasons use pauseIf and resumeIf.
        assertFalse(channel.config().isAutoRead());
        channel.finishAndReleaseAll();
    }
}
