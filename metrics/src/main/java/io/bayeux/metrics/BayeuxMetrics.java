package io.bayeux.metrics;

import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.transport.NettyBayeuxServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.netty4.NettyAllocatorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;

import java.util.Objects;

/**
 * The metrics of a {@link NettyBayeuxServer} in a Micrometer {@link MeterRegistry}: the
 * server's meters ({@code bayeux_*}, listed in {@code docs/metrics.md}), Netty's allocator, and
 * the JVM's (memory, GC, threads, class loading, CPU, uptime). The CPU's are this module's
 * {@code ProcessCpuMetrics}, under Micrometer's names, which a scrape reads at a fraction of the
 * cost of Micrometer's {@code ProcessorMetrics}.
 *
 * <pre>{@code
 * PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
 * BayeuxMetrics metrics = BayeuxMetrics.bind(server, registry);
 * ...
 * metrics.close(); // the server is no longer observed, its meters leave the registry
 * }</pre>
 *
 * <p>Binding installs the server's {@link io.bayeux.server.spi.ServerObserver}: from then on the
 * server reports its events (a server never bound reports nothing and reads no clock). Bind
 * before {@link NettyBayeuxServer#start()} to count the bytes of every connection: a
 * connection counts its bytes when it opened while the server was observed. A server is bound
 * to one registry at a time (a {@code CompositeMeterRegistry} feeds several).
 *
 * <p>Thread-safe.
 */
public final class BayeuxMetrics implements AutoCloseable {
    private final BayeuxServerImpl bayeux;
    private final MeterRegistry registry;
    private final MeterObserver observer;
    private final ServerGauges gauges;
    /** Holds a GC notification listener: closed with this; null when the JVM's meters are the application's. */
    private final JvmGcMetrics gc;

    private BayeuxMetrics(NettyBayeuxServer server, MeterRegistry registry, boolean jvm) {
        this.bayeux = (BayeuxServerImpl) server.bayeux();
        this.registry = registry;
        this.observer = new MeterObserver(registry);
        this.gauges = new ServerGauges(server, registry);
        this.gc = jvm ? new JvmGcMetrics() : null;
    }

    /**
     * Binds {@code server}'s meters, Netty's and the JVM's to {@code registry} and starts
     * observing the server. The JVM's meters are Micrometer's own binders: an application that
     * binds them too gets the same meters, not twice.
     *
     * @throws IllegalStateException when the server is bound already
     */
    public static BayeuxMetrics bind(NettyBayeuxServer server, MeterRegistry registry) {
        return bind(server, registry, true);
    }

    /**
     * Like {@link #bind}, without the JVM's meters: for a registry whose application binds them
     * itself (Spring Boot Actuator does), where a second {@code JvmGcMetrics} would record each
     * GC twice.
     *
     * @throws IllegalStateException when the server is bound already
     */
    public static BayeuxMetrics bindWithoutJvm(NettyBayeuxServer server, MeterRegistry registry) {
        return bind(server, registry, false);
    }

    private static BayeuxMetrics bind(NettyBayeuxServer server, MeterRegistry registry, boolean jvm) {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(registry, "registry");
        BayeuxMetrics metrics = new BayeuxMetrics(server, registry, jvm);
        try {
            metrics.bayeux.observe(metrics.observer);
        } catch (IllegalStateException x) {
            metrics.removeMeters();
            throw x;
        }
        if (jvm) {
            for (MeterBinder binder : new MeterBinder[] {new JvmMemoryMetrics(), metrics.gc, new JvmThreadMetrics(),
                    new ClassLoaderMetrics(), new ProcessCpuMetrics(), new UptimeMetrics()}) {
                binder.bindTo(registry);
            }
        }
        if (ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider allocator) {
            new NettyAllocatorMetrics(allocator).bindTo(registry);
        }
        return metrics;
    }

    /** The registry the meters are in. */
    public MeterRegistry registry() {
        return registry;
    }

    /**
     * Stops observing the server and removes its {@code bayeux_*} meters from the registry
     * (the JVM's and Netty's stay: others may use them). Idempotent.
     */
    @Override
    public void close() {
        if (bayeux.observer() == observer) {
            bayeux.observe(null);
        }
        if (gc != null) {
            gc.close();
        }
        removeMeters();
    }

    private void removeMeters() {
        observer.remove();
        gauges.remove(registry);
    }

    @Override
    public String toString() {
        return "BayeuxMetrics[" + bayeux + ", " + registry.getClass().getSimpleName() + "]";
    }
}
