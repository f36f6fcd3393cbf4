package io.bayeux.spring;

import io.bayeux.server.spi.ReadinessCheck;
import io.bayeux.transport.NettyBayeuxServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The {@code bayeux} component of Actuator's health: {@link Status#UP} when the server serves and
 * every {@link ReadinessCheck} (a cluster's links, its Redis, the application's own checks) is
 * ready; {@link Status#OUT_OF_SERVICE} when it serves but a check is not ready (it takes no new
 * traffic well: a load balancer should send it none); {@link Status#DOWN} when it does not serve.
 * The details name each check with {@code ready} and, when it has one, its {@code detail}, beside
 * {@code port} and {@code sessions}.
 *
 * <p>Thread-safe: each probe asks the server and the checks anew. A check that throws counts as
 * not ready, with its exception as the detail.
 */
public final class BayeuxHealthIndicator implements HealthIndicator {
    private static final Logger LOG = LoggerFactory.getLogger(BayeuxHealthIndicator.class);

    private final NettyBayeuxServer server;
    private final Supplier<List<ReadinessCheck>> checks;

    /**
     * @param checks the checks asked at each probe; a supplier, so that checks made after this
     *               indicator (a cluster's, once it runs) are asked too
     */
    public BayeuxHealthIndicator(NettyBayeuxServer server, Supplier<List<ReadinessCheck>> checks) {
        this.server = Objects.requireNonNull(server, "server");
        this.checks = Objects.requireNonNull(checks, "checks");
    }

    @Override
    public Health health() {
        boolean serving = server.isRunning();
        boolean ready = true;
        Map<String, Object> results = new LinkedHashMap<>();
        for (ReadinessCheck check : checks.get()) {
            ReadinessCheck.Result result;
            try {
                result = check.check();
            } catch (RuntimeException x) {
                LOG.warn("Readiness check {} failed", check.name(), x);
                result = ReadinessCheck.Result.notReady(String.valueOf(x));
            }
            ready &= result.ready();
            results.put(check.name(), result(result));
        }
        Health.Builder health = !serving ? Health.down().withDetail("server", "not serving")
                : ready ? Health.up() : Health.outOfService();
        if (serving) {
            health.withDetail("port", server.port()).withDetail("sessions", server.bayeux().getSessions().size());
        }
        return health.withDetail("checks", results).build();
    }

    private static Map<String, Object> result(ReadinessCheck.Result result) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("ready", result.ready());
        if (result.detail() != null) {
            map.put("detail", result.detail());
        }
        return map;
    }

    @Override
    public String toString() {
        return "BayeuxHealthIndicator[" + server + "]";
    }
}
