package io.bayeux.metrics;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bayeux.server.spi.ReadinessCheck;
import io.bayeux.transport.HttpRoute;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The answers of the health probes, as JSON: liveness ({@code {"status":"UP"}}, 200, whenever the
 * process answers) and readiness: 200 with {@code "status":"UP"} when the server serves and every
 * {@link ReadinessCheck} is ready, else 503 with {@code "status":"DOWN"}; each check reported by
 * name with its detail.
 *
 * <p>Immutable and thread-safe; each probe asks the checks anew. A check that throws counts as
 * not ready, with its exception as the detail.
 */
final class Health {
    private static final Logger LOG = LoggerFactory.getLogger(Health.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final BooleanSupplier serving;
    private final List<ReadinessCheck> checks;

    Health(BooleanSupplier serving, List<ReadinessCheck> checks) {
        this.serving = serving;
        this.checks = List.copyOf(checks);
    }

    HttpRoute.Reply live() {
        return HttpRoute.Reply.json(200, "{\"status\":\"UP\"}");
    }

    HttpRoute.Reply ready() {
        Map<String, Object> report = new LinkedHashMap<>();
        Map<String, Object> results = new LinkedHashMap<>();
        boolean serves = serving.getAsBoolean();
        boolean ready = serves;
        results.put("server", result(serves, serves ? null : "not serving"));
        for (ReadinessCheck check : checks) {
            ReadinessCheck.Result result;
            try {
                result = check.check();
            } catch (RuntimeException x) {
                LOG.warn("Readiness check {} failed", check.name(), x);
                result = ReadinessCheck.Result.notReady(String.valueOf(x));
            }
            ready &= result.ready();
            results.put(check.name(), result(result.ready(), result.detail()));
        }
        report.put("status", ready ? "UP" : "DOWN");
        report.put("checks", results);
        try {
            return HttpRoute.Reply.json(ready ? 200 : 503, JSON.writeValueAsString(report));
        } catch (JsonProcessingException x) {
            throw new IllegalStateException("Cannot write " + report, x);
        }
    }

    private static Map<String, Object> result(boolean ready, String detail) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("ready", ready);
        if (detail != null) {
            result.put("detail", detail);
        }
        return result;
    }

    @Override
    public String toString() {
        return "Health[" + checks.stream().map(ReadinessCheck::name).toList() + "]";
    }
}
