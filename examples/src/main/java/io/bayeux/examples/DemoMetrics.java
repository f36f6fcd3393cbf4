package io.bayeux.examples;

import io.bayeux.metrics.BayeuxMetrics;
import io.bayeux.metrics.MetricsEndpoints;
import io.bayeux.transport.NettyBayeuxServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The demo's metrics and health, on by default (the {@code --no-metrics} flag of
 * {@link DemoServer} turns them off): a Prometheus registry, scraped at {@code /metrics}, with
 * {@code /health/live} and {@code /health/ready}, on the demo's own port, for loopback clients.
 */
final class DemoMetrics {
    static final String FLAG = "--no-metrics";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    /** Adds the endpoints to the server to be built. */
    void addTo(NettyBayeuxServer.Builder builder) {
        MetricsEndpoints.builder(registry).build().addTo(builder);
    }

    /** Observes the server, once built (started or not). */
    BayeuxMetrics bind(NettyBayeuxServer server) {
        return BayeuxMetrics.bind(server, registry);
    }
}
