package io.bayeux.examples;

import io.bayeux.cluster.redis.RedisNode;
import io.bayeux.metrics.BayeuxMetrics;
import io.bayeux.metrics.MetricsEndpoints;
import io.bayeux.metrics.OortMetrics;
import io.bayeux.metrics.PresenceMetrics;
import io.bayeux.metrics.RedisMetrics;
import io.bayeux.oort.OortNode;
import io.bayeux.server.spi.ReadinessCheck;
import io.bayeux.transport.NettyBayeuxServer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.util.ArrayList;
import java.util.List;

/**
 * The demo's metrics and health, on by default (the {@code --no-metrics} flag of
 * {@link DemoServer} turns them off): a Prometheus registry, scraped at {@code /metrics}, with
 * {@code /health/live} and {@code /health/ready}, on the demo's own port, for loopback clients.
 * A cluster node also has its cluster's meters (Oort links or the Redis engine, and the
 * presence's users and nodes) and is ready only while its cluster is (its links, or its Redis).
 */
final class DemoMetrics {
    static final String FLAG = "--no-metrics";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    /** The name of the cluster's readiness check ({@code oort}, {@code redis}), or null without a cluster. */
    private final String cluster;
    /** The cluster's readiness, once its node started; null before. */
    private volatile ReadinessCheck clusterReadiness;
    private final List<AutoCloseable> bound = new ArrayList<>();

    /** A single server's. */
    DemoMetrics() {
        this(null);
    }

    /** A cluster node's: {@code cluster} names the kind ({@code oort} or {@code redis}), or null for none. */
    DemoMetrics(String cluster) {
        this.cluster = cluster;
    }

    /** Adds the endpoints to the server to be built. */
    void addTo(NettyBayeuxServer.Builder builder) {
        MetricsEndpoints.Builder endpoints = MetricsEndpoints.builder(registry);
        if (cluster != null) {
            endpoints.readinessCheck(new ReadinessCheck() {
                @Override
                public String name() {
                    return cluster;
                }

                @Override
                public Result check() {
                    ReadinessCheck started = clusterReadiness;
                    return started == null ? Result.notReady("the cluster is starting") : started.check();
                }
            });
        }
        endpoints.build().addTo(builder);
    }

    /** Observes the server, once built (started or not). */
    BayeuxMetrics bind(NettyBayeuxServer server) {
        return BayeuxMetrics.bind(server, registry);
    }

    /**
     * Observes an Oort node's links and its Seti too; it is ready once linked with another node
     * when it was given peers, as soon as it runs when not (the first node of a cluster).
     */
    void bind(OortNode node, boolean peers) {
        bound.add(OortMetrics.bind(node.oort(), registry));
        bound.add(PresenceMetrics.bind(node.seti(), registry));
        clusterReadiness = OortMetrics.readiness(node.oort(), peers ? 1 : 0);
    }

    /** Observes a Redis node's engine and its presence too; it is ready while it reaches Redis. */
    void bind(RedisNode node) {
        bound.add(RedisMetrics.bind(node.cluster(), registry));
        bound.add(PresenceMetrics.bind(node.seti(), registry));
        clusterReadiness = RedisMetrics.readiness(node.cluster());
    }

    /** Stops observing the cluster. */
    void closeCluster() throws Exception {
        for (AutoCloseable each : bound) {
            each.close();
        }
        bound.clear();
    }
}
