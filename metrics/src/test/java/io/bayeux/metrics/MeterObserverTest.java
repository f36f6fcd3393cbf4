package io.bayeux.metrics;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The observer's per-message and per-frame events count without allocating. */
class MeterObserverTest {
    private static final int EVENTS = 200_000;

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    private static void hotPath(MeterObserver observer, int times) {
        for (int i = 0; i < times; i++) {
            observer.received("websocket", 2);
            observer.published("websocket");
            long now = System.nanoTime();
            observer.delivered("websocket", 3, now - 1_000_000, now);
            observer.queueDepth(5);
            observer.metaHandled("/meta/connect", 20_000);
            observer.bytesRead(100);
            observer.bytesWritten(300);
        }
    }

    @Test
    void theHotPathEventsAllocateNothingPerEvent() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        MeterObserver observer = new MeterObserver(registry);
        hotPath(observer, 10_000); // warmed up: lazy parts made, code compiled
        long before = allocatedBytes();
        hotPath(observer, EVENTS);
        long allocated = allocatedBytes() - before;
        assertTrue(allocated < 64 * 1024, () -> allocated + " bytes allocated by " + EVENTS + " rounds of events");
        assertEquals(2.0 * (EVENTS + 10_000), registry.get("bayeux.messages.received").tag("transport", "websocket").functionCounter().count());
        assertEquals(EVENTS + 10_000, registry.get("bayeux.delivery.latency").timer().count());
    }

    @Test
    void onAnEventLoopTheHotPathEventsAllocateNothingPerEventEither() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        MeterObserver observer = new MeterObserver(registry);
        long[] allocated = new long[1];
        Thread loop = new DefaultThreadFactory("loop").newThread(() -> {
            hotPath(observer, 10_000);
            long before = allocatedBytes();
            hotPath(observer, EVENTS);
            allocated[0] = allocatedBytes() - before;
        });
        loop.start();
        loop.join();
        assertTrue(allocated[0] < 64 * 1024, () -> allocated[0] + " bytes allocated by " + EVENTS + " rounds of events");
        assertEquals(300.0 * (EVENTS + 10_000), registry.get("bayeux.network.sent").functionCounter().count(), "the loop's counts outlive it");
        assertEquals(3.0 * (EVENTS + 10_000), registry.get("bayeux.messages.delivered").tag("transport", "websocket").functionCounter().count());
    }

    @Test
    void aTransportNamedByAnEqualStringCountsWithTheKnownOneAndAnUnknownOneApart() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        MeterObserver observer = new MeterObserver(registry);
        observer.published(new String("websocket".toCharArray()));
        observer.published("carrier-pigeon");
        observer.delivered(null, 2, 0, 0);
        assertEquals(1.0, registry.get("bayeux.messages.published").tag("transport", "websocket").functionCounter().count());
        assertEquals(1.0, registry.get("bayeux.messages.published").tag("transport", "carrier-pigeon").counter().count());
        assertEquals(2.0, registry.get("bayeux.messages.delivered").tag("transport", "none").functionCounter().count());
        observer.remove();
        assertTrue(registry.find("bayeux.messages.published").meters().isEmpty(), "removed, the unknown transport's too");
    }

    @Test
    void aLabelFromPeersKeepsABoundedNumberOfValues() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        MeterObserver observer = new MeterObserver(registry);
        for (int i = 0; i < 100; i++) {
            observer.publishRefused("403::custom_refusal_" + i);
        }
        assertEquals(LabelledCounters.MAX_VALUES + 1, registry.find("bayeux.publishes.refused").counters().size(), "its values, and other");
        assertTrue(registry.get("bayeux.publishes.refused").tag("reason", LabelledCounters.OTHER).counter().count() > 0);
    }
}
