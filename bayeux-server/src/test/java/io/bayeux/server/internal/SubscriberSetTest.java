package io.bayeux.server.internal;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SubscriberSetTest {
    /** Elements whose hash codes are all alike: one bucket, whatever the table. */
    private record Colliding(int n) {
        @Override
        public int hashCode() {
            return 42;
        }
    }

    @Test
    void behavesAsASetWhileGrowingAndShrinking() {
        SubscriberSet<Object> set = new SubscriberSet<>();
        Set<Object> expected = new HashSet<>();
        List<Object> elements = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            elements.add(new Object());
        }
        for (Object element : elements) {
            assertTrue(set.add(element));
            assertFalse(set.add(element));
            expected.add(element);
        }
        assertEquals(expected, set);
        assertEquals(5000, set.size());
        for (int i = 0; i < elements.size(); i += 2) {
            assertTrue(set.remove(elements.get(i)));
            assertFalse(set.remove(elements.get(i)));
            expected.remove(elements.get(i));
        }
        assertEquals(expected, new HashSet<>(set));
        for (Object element : elements) {
            assertEquals(expected.contains(element), set.contains(element));
        }
        for (Object element : elements) {
            set.remove(element);
        }
        assertTrue(set.isEmpty());
        assertFalse(set.iterator().hasNext());
        assertTrue(set.add(elements.get(0)));
        assertEquals(Set.of(elements.get(0)), set);
    }

    @Test
    void elementsWithTheSameHashShareABucket() {
        SubscriberSet<Colliding> set = new SubscriberSet<>();
        for (int i = 0; i < 100; i++) {
            assertTrue(set.add(new Colliding(i)));
        }
        assertFalse(set.add(new Colliding(7)));
        assertTrue(set.remove(new Colliding(7)));
        assertFalse(set.contains(new Colliding(7)));
        assertEquals(99, set.size());
        assertEquals(99, new HashSet<>(set).size());
    }

    @Test
    void theIteratorRemoves() {
        SubscriberSet<Integer> set = new SubscriberSet<>();
        for (int i = 0; i < 100; i++) {
            set.add(i);
        }
        set.removeIf(i -> i % 3 == 0);
        assertEquals(66, set.size());
        for (int i = 0; i < 100; i++) {
            assertEquals(i % 3 != 0, set.contains(i));
        }
        assertFalse(set.contains(null));
        assertFalse(set.remove(null));
    }

    /**
     * While another thread adds and removes other elements (the table growing and shrinking),
     * every iteration returns each element that stays in the set exactly once, and no element twice.
     */
    @Test
    void iterationsDuringChangesSeeEveryStableElementOnceAndNothingTwice() throws Exception {
        SubscriberSet<Object> set = new SubscriberSet<>();
        List<Object> stable = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            Object element = new Object();
            stable.add(element);
            set.add(element);
        }
        List<Object> churn = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            churn.add(new Object());
        }
        CountDownLatch done = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread changer = new Thread(() -> {
            try {
                for (int round = 0; round < 40; round++) {
                    churn.forEach(set::add);
                    churn.forEach(set::remove);
                }
            } catch (Throwable x) {
                failure.set(x);
            } finally {
                done.countDown();
            }
        });
        changer.start();
        int iterations = 0;
        while (done.getCount() > 0 || iterations == 0) {
            Set<Object> seen = new HashSet<>();
            for (Iterator<Object> it = set.iterator(); it.hasNext(); ) {
                Object element = it.next();
                assertTrue(seen.add(element), "returned twice");
            }
            assertTrue(seen.containsAll(stable), "missed a stable element");
            iterations++;
        }
        assertTrue(done.await(60, TimeUnit.SECONDS));
        assertNull(failure.get());
        assertEquals(new HashSet<>(stable), set);
    }
}
