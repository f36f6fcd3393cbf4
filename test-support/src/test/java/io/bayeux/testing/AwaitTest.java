package io.bayeux.testing;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AwaitTest {
    @Test
    void returnsOnceTheConditionHolds() {
        AtomicInteger polls = new AtomicInteger();
        Await.until(Duration.ofSeconds(10), () -> polls.incrementAndGet() == 3, () -> "the third poll");
        assertEquals(3, polls.get());
    }

    @Test
    void failsAfterTheTimeoutSayingWhatWasAwaitedAndTheStateThen() {
        AtomicInteger polls = new AtomicInteger();
        AssertionError error = assertThrows(AssertionError.class,
                () -> Await.until(Duration.ofMillis(20), () -> polls.incrementAndGet() < 0, () -> "a negative count, at " + polls.get()));
        assertTrue(error.getMessage().startsWith("Timed out after PT0.02S waiting for a negative count, at "), error.getMessage());
        assertTrue(error.getMessage().endsWith("at " + polls.get()), "the state when it failed: " + error.getMessage());
    }

    @Test
    void aProbeReturnsTheFirstAcceptedValueOrFailsWithTheLastSeen() {
        AtomicInteger counter = new AtomicInteger();
        assertEquals(5, Await.until(Duration.ofSeconds(10), counter::incrementAndGet, n -> n >= 5, "five"));
        AssertionError error = assertThrows(AssertionError.class,
                () -> Await.until(Duration.ZERO, () -> "stuck", s -> false, "a change"));
        assertEquals("Timed out after PT0S waiting for a change; last seen: stuck", error.getMessage());
    }

    @Test
    void anInterruptedWaitFailsAtOnceAndKeepsTheInterrupt() {
        Thread.currentThread().interrupt();
        try {
            AssertionError error = assertThrows(AssertionError.class, () -> Await.until(Duration.ofMinutes(1), () -> false, () -> "nothing"));
            assertEquals("Interrupted while waiting for nothing", error.getMessage());
            assertTrue(Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();
        }
    }
}
