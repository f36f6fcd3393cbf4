package io.bayeux.cluster.redis;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** How the way out to the other nodes sends, and sends again, without Redis: a recording publisher that fails on demand. */
class OutageBufferTest {
    /** Records each publish's sequence number; completes it, or fails it while {@link #failing}. */
    private static final class Recorder {
        final List<Long> sent = new ArrayList<>();
        final List<CompletableFuture<Long>> pending = new ArrayList<>();
        boolean failing;

        CompletionStage<Long> publish(String channel, String json) {
            sent.add(((Number) parse(json).get("seq")).longValue());
            CompletableFuture<Long> reply = new CompletableFuture<>();
            pending.add(reply);
            return reply;
        }

        /** Answers every publish not answered yet: as Redis would, or as a command that timed out. */
        void answer() {
            List<CompletableFuture<Long>> now = List.copyOf(pending);
            pending.clear();
            for (CompletableFuture<Long> reply : now) {
                if (failing) {
                    reply.completeExceptionally(new IllegalStateException("timed out"));
                } else {
                    reply.complete(1L);
                }
            }
        }

        private static Map<?, ?> parse(String json) {
            try {
                return Envelope.parse(json);
            } catch (Exception x) {
                throw new AssertionError(x);
            }
        }
    }

    private static void publish(OutageBuffer buffer, int count) {
        for (int i = 0; i < count; i++) {
            buffer.publish("/chat/room", "bayeux:/chat/room", seq -> new Envelope("node", "/chat/room", Map.of(), seq));
        }
    }

    @Test
    void withOneAttemptAFailedPublishIsDroppedAndCounted() {
        Recorder redis = new Recorder();
        List<Runnable> scheduled = new ArrayList<>();
        OutageBuffer buffer = new OutageBuffer(100, () -> true, redis::publish, 1, scheduled::add);
        redis.failing = true;
        publish(buffer, 3);
        redis.answer();
        assertEquals(List.of(1L, 2L, 3L), redis.sent);
        assertEquals(3, buffer.dropped());
        assertEquals(List.of(), scheduled);
    }

    @Test
    void failedPublishesAreSentAgainInOrderBeforeTheLaterOnesAtTheScheduledFlush() {
        Recorder redis = new Recorder();
        List<Runnable> scheduled = new ArrayList<>();
        OutageBuffer buffer = new OutageBuffer(100, () -> true, redis::publish, 3, scheduled::add);
        publish(buffer, 2);
        redis.answer();
        redis.failing = true;
        publish(buffer, 3);
        redis.answer();
        // 3, 4, 5 failed: what comes next waits behind them, for the flush.
        publish(buffer, 2);
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), redis.sent);
        assertEquals(1, scheduled.size(), "one flush scheduled");
        redis.failing = false;
        scheduled.remove(0).run();
        redis.answer();
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 3L, 4L, 5L, 6L, 7L), redis.sent);
        assertEquals(7, buffer.published());
        assertEquals(0, buffer.dropped());
    }

    @Test
    void theFlushWaitsUntilNoPublishIsLeftUnanswered() {
        Recorder redis = new Recorder();
        List<Runnable> scheduled = new ArrayList<>();
        OutageBuffer buffer = new OutageBuffer(100, () -> true, redis::publish, 3, scheduled::add);
        publish(buffer, 2);
        redis.failing = true;
        redis.pending.remove(0).completeExceptionally(new IllegalStateException("timed out"));
        // 2 is still unanswered: the flush waits for it, rather than send 1 again before 2 may fail.
        scheduled.remove(0).run();
        assertEquals(List.of(1L, 2L), redis.sent);
        assertEquals(1, scheduled.size(), "the flush scheduled again");
        redis.answer();
        redis.failing = false;
        scheduled.remove(0).run();
        assertEquals(List.of(1L, 2L, 1L, 2L), redis.sent);
    }

    @Test
    void afterAHoldTheNextMessagesWaitUntilThoseSentAreAnswered() {
        Recorder redis = new Recorder();
        List<Runnable> scheduled = new ArrayList<>();
        OutageBuffer buffer = new OutageBuffer(100, () -> true, redis::publish, 3, scheduled::add);
        publish(buffer, 2);
        buffer.hold();
        publish(buffer, 1);
        assertEquals(List.of(1L, 2L), redis.sent, "3 held back while 1 and 2 are unanswered");
        redis.failing = true;
        redis.answer();
        redis.failing = false;
        scheduled.remove(0).run();
        redis.answer();
        assertEquals(List.of(1L, 2L, 1L, 2L, 3L), redis.sent);
        assertEquals(3, buffer.published());
    }

    @Test
    void aHoldWithNothingUnansweredHoldsNothing() {
        Recorder redis = new Recorder();
        List<Runnable> scheduled = new ArrayList<>();
        OutageBuffer buffer = new OutageBuffer(100, () -> true, redis::publish, 3, scheduled::add);
        buffer.hold();
        publish(buffer, 1);
        assertEquals(List.of(1L), redis.sent);
        assertEquals(List.of(), scheduled);
    }

    @Test
    void aMessageIsSentAtMostAttemptsTimesThenDropped() {
        Recorder redis = new Recorder();
        List<Runnable> scheduled = new ArrayList<>();
        OutageBuffer buffer = new OutageBuffer(100, () -> true, redis::publish, 2, scheduled::add);
        redis.failing = true;
        publish(buffer, 1);
        redis.answer();
        scheduled.remove(0).run();
        redis.answer();
        assertEquals(List.of(1L, 1L), redis.sent);
        assertEquals(List.of(), scheduled);
        assertEquals(1, buffer.dropped());
    }

    @Test
    void messagesToSendAgainCountAgainstTheCapacity() {
        Recorder redis = new Recorder();
        List<Runnable> scheduled = new ArrayList<>();
        OutageBuffer buffer = new OutageBuffer(2, () -> true, redis::publish, 3, scheduled::add);
        redis.failing = true;
        publish(buffer, 3);
        redis.answer();
        // Two kept to send again, the third past the capacity; the next one too.
        assertEquals(1, buffer.dropped());
        publish(buffer, 1);
        assertEquals(2, buffer.dropped());
    }

    @Test
    void aSendThatFailsAndHoldsAtOnceDuringAFlushStopsItThereAndTheRestFollowItInOrder() {
        // As a history's publish does on a new master that lacks its script: the answer (NOSCRIPT)
        // is there at once, the sender holds the buffer, and the next publish (the whole script) would succeed.
        AtomicBoolean connected = new AtomicBoolean(false);
        List<Runnable> scheduled = new ArrayList<>();
        List<String> sent = new ArrayList<>();
        AtomicBoolean scriptKnown = new AtomicBoolean(false);
        OutageBuffer[] buffer = new OutageBuffer[1];
        buffer[0] = new OutageBuffer(100, connected::get, (channel, json) -> CompletableFuture.completedFuture(1L), 3, scheduled::add);
        OutageBuffer.Sender history = (order, attempt) -> {
            sent.add(order + "/" + attempt);
            if (scriptKnown.get()) {
                return CompletableFuture.completedFuture("1");
            }
            buffer[0].hold();
            scriptKnown.set(true);
            return CompletableFuture.failedFuture(new IllegalStateException("NOSCRIPT"));
        };
        for (int i = 0; i < 3; i++) {
            buffer[0].submit("/event/kept", history, failure -> sent.add("lost"));
        }
        connected.set(true);
        buffer[0].flush();
        assertEquals(List.of("1/1"), sent, "nothing after the failed one went before it");
        assertEquals(1, scheduled.size(), "a flush scheduled");
        scheduled.remove(0).run();
        assertEquals(List.of("1/1", "1/2", "2/1", "3/1"), sent);
        assertEquals(0, buffer[0].buffered());
    }
}
