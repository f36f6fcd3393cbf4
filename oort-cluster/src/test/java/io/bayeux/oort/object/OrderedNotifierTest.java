package io.bayeux.oort.object;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OrderedNotifierTest {
    private final OrderedNotifier notifier = new OrderedNotifier(LoggerFactory.getLogger(OrderedNotifierTest.class), "test");
    private final List<String> told = new ArrayList<>();

    @Test
    void aChangeQueuedByAListenerIsToldAfterItReturns() {
        notifier.add(() -> {
            told.add("first");
            notifier.add(() -> told.add("second"));
            notifier.run();
            told.add("first done");
        });
        notifier.run();
        assertEquals(List.of("first", "first done", "second"), told);
    }

    @Test
    void aThrowingListenerIsSkipped() {
        notifier.add(() -> {
            throw new IllegalStateException("expected by the test");
        });
        notifier.add(() -> told.add("next"));
        notifier.run();
        assertEquals(List.of("next"), told);
    }

    @Test
    void aChangeFromAnotherThreadIsToldByTheThreadAlreadyTelling() throws InterruptedException {
        CountDownLatch telling = new CountDownLatch(1);
        CountDownLatch queued = new CountDownLatch(1);
        List<String> threads = new ArrayList<>();
        notifier.add(() -> {
            telling.countDown();
            await(queued);
            threads.add(Thread.currentThread().getName());
        });
        Thread first = new Thread(notifier::run, "first");
        first.start();
        assertTrue(telling.await(10, TimeUnit.SECONDS));
        notifier.add(() -> threads.add(Thread.currentThread().getName()));
        // The first thread is telling: this one returns at once, leaving the change to it.
        notifier.run();
        queued.countDown();
        first.join(10_000);
        assertEquals(List.of("first", "first"), threads);
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(10, TimeUnit.SECONDS));
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
    }
}
