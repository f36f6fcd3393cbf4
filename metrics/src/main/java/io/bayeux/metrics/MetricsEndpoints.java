package io.bayeux.metrics;

import io.bayeux.server.spi.ReadinessCheck;
import io.bayeux.transport.HttpRoute;
import io.bayeux.transport.NettyBayeuxServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * The HTTP endpoints of a server's metrics and health: a Prometheus scrape (text format 0.0.4, or
 * OpenMetrics by {@code Accept}) at {@value #METRICS_PATH}, a liveness probe at
 * {@value #LIVE_PATH} and a readiness probe at {@value #READY_PATH} (JSON, see
 * {@code docs/metrics.md}), at paths the builder may change. Served either on the server's own
 * port ({@link #addTo(NettyBayeuxServer.Builder)}) or on an admin port of their own
 * ({@link #startAdminServer}); either way answered to loopback clients only unless
 * {@linkplain Builder#remoteAccess(boolean) told otherwise}.
 *
 * <pre>{@code
 * PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
 * MetricsEndpoints endpoints = MetricsEndpoints.builder(registry).build();
 * NettyBayeuxServer server = endpoints.addTo(NettyBayeuxServer.builder().port(8080)).build();
 * BayeuxMetrics.bind(server, registry);
 * server.start();
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class MetricsEndpoints {
    public static final String METRICS_PATH = "/metrics";
    public static final String LIVE_PATH = "/health/live";
    public static final String READY_PATH = "/health/ready";

    private final Scrape scrape;
    private final String metricsPath;
    private final String livePath;
    private final String readyPath;
    private final List<ReadinessCheck> checks;
    private final boolean remoteAccess;

    private MetricsEndpoints(Builder builder) {
        this.scrape = new Scrape(builder.registry);
        this.metricsPath = builder.metricsPath;
        this.livePath = builder.livePath;
        this.readyPath = builder.readyPath;
        this.checks = List.copyOf(builder.checks);
        this.remoteAccess = builder.remoteAccess;
    }

    public static Builder builder(PrometheusMeterRegistry registry) {
        return new Builder(registry);
    }

    /**
     * The routes, by path, for a server that serves while {@code serving} says so (a server
     * whose own port answers a probe serves: there it is always true).
     */
    public Map<String, HttpRoute> routes(BooleanSupplier serving) {
        Health health = new Health(serving, checks);
        Map<String, HttpRoute> routes = new LinkedHashMap<>();
        routes.put(metricsPath, guard(scrape::answer));
        routes.put(livePath, guard(request -> health.live()));
        routes.put(readyPath, guard(request -> health.ready()));
        return routes;
    }

    private HttpRoute guard(HttpRoute route) {
        return remoteAccess ? route : route.loopbackOnly();
    }

    /** Adds the routes to the server's own port; returns {@code builder}. */
    public NettyBayeuxServer.Builder addTo(NettyBayeuxServer.Builder builder) {
        routes(() -> true).forEach(builder::route);
        return builder;
    }

    /**
     * Serves the endpoints on a port of their own, of {@code host} (use {@code 127.0.0.1} unless
     * the network must reach them, with {@link Builder#remoteAccess}); ready while {@code server}
     * {@linkplain NettyBayeuxServer#isRunning() runs}.
     *
     * @param port the port, or 0 for an ephemeral one
     * @throws IOException when the port cannot be bound
     */
    public AdminServer startAdminServer(NettyBayeuxServer server, String host, int port) throws IOException {
        Objects.requireNonNull(server, "server");
        return AdminServer.start(host, port, routes(server::isRunning));
    }

    @Override
    public String toString() {
        return "MetricsEndpoints[" + metricsPath + ", " + livePath + ", " + readyPath + (remoteAccess ? ", remote" : ", loopback") + "]";
    }

    /** Builds {@link MetricsEndpoints}; each setter checks its argument. Not thread-safe. */
    public static final class Builder {
        private final PrometheusMeterRegistry registry;
        private String metricsPath = METRICS_PATH;
        private String livePath = LIVE_PATH;
        private String readyPath = READY_PATH;
        private final List<ReadinessCheck> checks = new ArrayList<>();
        private boolean remoteAccess;

        private Builder(PrometheusMeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
        }

        /** The scrape's path; default {@value #METRICS_PATH}. */
        public Builder metricsPath(String path) {
            this.metricsPath = checkPath(path);
            return this;
        }

        /** The liveness probe's path; default {@value #LIVE_PATH}. */
        public Builder livePath(String path) {
            this.livePath = checkPath(path);
            return this;
        }

        /** The readiness probe's path; default {@value #READY_PATH}. */
        public Builder readyPath(String path) {
            this.readyPath = checkPath(path);
            return this;
        }

        /** A further condition of readiness (a cluster's links, its Redis); none by default. */
        public Builder readinessCheck(ReadinessCheck check) {
            checks.add(Objects.requireNonNull(check, "check"));
            return this;
        }

        /** Whether clients other than loopback ones are answered; default false (they get 403). */
        public Builder remoteAccess(boolean remoteAccess) {
            this.remoteAccess = remoteAccess;
            return this;
        }

        private static String checkPath(String path) {
            Objects.requireNonNull(path, "path");
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException("A path must start with '/': " + path);
            }
            return path;
        }

        /** @throws IllegalArgumentException when two endpoints share a path */
        public MetricsEndpoints build() {
            if (metricsPath.equals(livePath) || metricsPath.equals(readyPath) || livePath.equals(readyPath)) {
                throw new IllegalArgumentException("The endpoints need three paths: " + metricsPath + ", " + livePath + ", " + readyPath);
            }
            return new MetricsEndpoints(this);
        }
    }
}
