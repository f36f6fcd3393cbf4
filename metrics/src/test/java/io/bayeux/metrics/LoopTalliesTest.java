package io.bayeux.metrics;

import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Counts of Netty threads and of other threads, read while they count and after they end. */
class LoopTalliesTest {
    private static final int ADDS = 100_000;

    @Test
    void everyThreadsCountsAreSummedWhileTheyRunAndAfterTheyEnd() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        LoopTallies tallies = new LoopTallies(registry);
        int a = tallies.register("test.a", "a", null, Tags.empty());
        int b = tallies.register("test.b", "b", "bytes", Tags.of("k", "v"));
        DefaultThreadFactory netty = new DefaultThreadFactory("tally");
        CountDownLatch counted = new CountDownLatch(3);
        CountDownLatch end = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            Runnable count = () -> {
                for (int i = 0; i < ADDS; i++) {
                    tallies.add(a, 1);
                    tallies.add(b, 2);
                }
                counted.countDown();
                try {
                    end.await();
                } catch (InterruptedException x) {
                    Thread.currentThread().interrupt();
                }
            };
            // Two Netty threads (arrays of their own) and one other (the adders).
            threads.add(t < 2 ? netty.newThread(count) : new Thread(count));
        }
        threads.forEach(Thread::start);
        // Read while they count: a counter never goes down.
        long last = 0;
        while (counted.getCount() > 0) {
            long now = tallies.sum(a);
            assertTrue(now >= last, now + " after " + last);
            last = now;
        }
        assertEquals(3L * ADDS, tallies.sum(a));
        assertEquals(6.0 * ADDS, registry.get("test.b").tag("k", "v").functionCounter().count());
        end.countDown();
        for (Thread thread : threads) {
            thread.join();
        }
        assertEquals(3L * ADDS, tallies.sum(a), "the ended threads' counts stay");
        assertEquals(6L * ADDS, tallies.sum(b));
        tallies.remove();
        assertTrue(registry.find("test.a").meters().isEmpty());
    }
}
