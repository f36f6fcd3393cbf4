package io.bayeux.metrics;

import io.bayeux.oort.CometListener;
import io.bayeux.oort.Oort;
import io.bayeux.server.spi.ReadinessCheck;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The meters of an {@link Oort} node: links up now ({@code bayeux_oort_links_up}), nodes that
 * joined and left ({@code bayeux_oort_joins_total}, {@code bayeux_oort_links_lost_total}), and
 * messages from other nodes dropped because this one could not republish them fast enough
 * ({@code bayeux_oort_dropped_total}); and its {@linkplain #readiness readiness check}.
 *
 * <pre>{@code
 * OortMetrics oortMetrics = OortMetrics.bind(node.oort(), registry);
 * MetricsEndpoints.builder(registry).readinessCheck(OortMetrics.readiness(node.oort(), 1)).build();
 * }</pre>
 *
 * <p>Thread-safe; {@link #close()} removes its meters and its listener.
 */
public final class OortMetrics implements AutoCloseable {
    private final Oort oort;
    private final MeterRegistry registry;
    private final List<Meter> meters = new ArrayList<>();
    private final CometListener listener;

    private OortMetrics(Oort oort, MeterRegistry registry) {
        this.oort = oort;
        this.registry = registry;
        meters.add(Gauge.builder("bayeux.oort.links.up", oort, o -> o.getKnownComets().size())
                .description("Other nodes this node is linked with now, both ways").register(registry));
        meters.add(FunctionCounter.builder("bayeux.oort.dropped", oort, Oort::getDroppedCount)
                .description("Messages from other nodes dropped: this node could not republish them fast enough").register(registry));
        Counter joins = Counter.builder("bayeux.oort.joins").description("Other nodes that joined this one").register(registry);
        Counter lost = Counter.builder("bayeux.oort.links.lost").description("Other nodes that left this one: stopped, restarted or unreachable").register(registry);
        meters.add(joins);
        meters.add(lost);
        this.listener = new CometListener() {
            @Override
            public void cometJoined(Event event) {
                joins.increment();
            }

            @Override
            public void cometLeft(Event event) {
                lost.increment();
            }
        };
    }

    /** Registers the node's meters in {@code registry}; the joins and losses count from now on. */
    public static OortMetrics bind(Oort oort, MeterRegistry registry) {
        OortMetrics metrics = new OortMetrics(Objects.requireNonNull(oort, "oort"), Objects.requireNonNull(registry, "registry"));
        oort.addCometListener(metrics.listener);
        return metrics;
    }

    /**
     * Ready when the node runs and is linked with at least {@code minimumLinks} other nodes
     * (0: running is enough, as for the first node of a cluster).
     */
    public static ReadinessCheck readiness(Oort oort, int minimumLinks) {
        Objects.requireNonNull(oort, "oort");
        if (minimumLinks < 0) {
            throw new IllegalArgumentException("minimumLinks must not be negative: " + minimumLinks);
        }
        return new ReadinessCheck() {
            @Override
            public String name() {
                return "oort";
            }

            @Override
            public Result check() {
                if (!oort.isRunning()) {
                    return Result.notReady("Oort is not running");
                }
                int links = oort.getKnownComets().size();
                return links >= minimumLinks ? Result.READY
                        : Result.notReady(links + " links up, " + minimumLinks + " needed");
            }
        };
    }

    @Override
    public void close() {
        oort.removeCometListener(listener);
        meters.forEach(registry::remove);
    }

    @Override
    public String toString() {
        return "OortMetrics[" + oort.getURL() + "]";
    }
}
