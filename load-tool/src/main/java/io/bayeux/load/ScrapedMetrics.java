package io.bayeux.load;

import io.bayeux.metrics.BayeuxMetrics;
import io.bayeux.metrics.MetricsEndpoints;
import io.bayeux.transport.NettyBayeuxServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * {@code bayeux-load server --metrics}: a Prometheus registry bound to the benchmark server, served
 * at {@code /metrics}, and scraped every second in the server's own process, as a Prometheus
 * server would scrape it, so that the server's CPU per delivery includes what metrics cost.
 */
final class ScrapedMetrics implements AutoCloseable {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ScheduledExecutorService scraper = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "bayeux-load-scraper");
        thread.setDaemon(true);
        return thread;
    });
    /** Made by {@link #bind}; closed by {@link #close}. */
    private BayeuxMetrics bound;

    private ScrapedMetrics() {
    }

    /** Metrics whose endpoints {@code builder}'s server will serve. */
    static ScrapedMetrics addTo(NettyBayeuxServer.Builder builder) {
        ScrapedMetrics metrics = new ScrapedMetrics();
        MetricsEndpoints.builder(metrics.registry).build().addTo(builder);
        return metrics;
    }

    /** Binds the meters to {@code server}, before it starts, and scrapes them every second from now on. */
    void bind(NettyBayeuxServer server) {
        bound = BayeuxMetrics.bind(server, registry);
        scraper.scheduleAtFixedRate(registry::scrape, 1, 1, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        scraper.shutdownNow();
        if (bound != null) {
            bound.close();
        }
        registry.close();
    }
}
