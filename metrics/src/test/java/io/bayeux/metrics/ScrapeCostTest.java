package io.bayeux.metrics;

import io.bayeux.api.server.LocalSession;
import io.bayeux.transport.HttpRoute;
import io.bayeux.transport.NettyBayeuxServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What one scrape of a bound server allocates, with a thousand sessions subscribed: the bytes the
 * JVM's binders read, the census of the server, the registry's snapshot and the text of the reply.
 * A bound on the heap it costs (time is not asserted: it is noise on a shared machine;
 * {@code ScrapeBenchmark} measures it).
 */
class ScrapeCostTest {
    private static final int SESSIONS = 1000;
    private static final int WARMUP = 200;
    private static final int SCRAPES = 50;
    /** What a scrape may allocate: about 15 times what its text weighs (most of it the Prometheus client's own). */
    private static final long MAX_ALLOCATED = 360 * 1024;
    private static final HttpRoute.Request GET = new HttpRoute.Request("GET", MetricsEndpoints.METRICS_PATH, Map.of(), Map.of(),
            new byte[0], new InetSocketAddress("127.0.0.1", 1));

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    @Test
    void aScrapeAllocatesAFewTimesItsText() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (NettyBayeuxServer server = NettyBayeuxServer.builder().host("127.0.0.1").port(0).build();
             BayeuxMetrics metrics = BayeuxMetrics.bind(server, registry)) {
            server.start();
            for (int i = 0; i < SESSIONS; i++) {
                LocalSession session = server.bayeux().newLocalSession("s" + i);
                session.handshake();
                session.getChannel("/chat/room/" + (i % 100)).subscribe((channel, message) -> { });
            }
            Scrape scrape = new Scrape(registry);
            int size = 0;
            for (int i = 0; i < WARMUP; i++) {
                size = scrape.answer(GET).body().length;
            }
            long before = allocated();
            for (int i = 0; i < SCRAPES; i++) {
                assertEquals(200, scrape.answer(GET).status());
            }
            long perScrape = (allocated() - before) / SCRAPES;
            int text = size;
            assertTrue(perScrape < MAX_ALLOCATED, () -> perScrape + " bytes allocated per scrape of " + text + " bytes: "
                    + List.of(registry.getMeters().size() + " meters"));
        }
    }
}
