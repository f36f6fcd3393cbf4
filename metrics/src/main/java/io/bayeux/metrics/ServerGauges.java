package io.bayeux.metrics;

import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.server.internal.ServerCensus;
import io.bayeux.transport.NettyBayeuxServer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.netty.util.internal.PlatformDependent;

import java.util.ArrayList;
import java.util.List;

/**
 * The gauges of a server, read when the registry is scraped (nothing on the delivery path):
 * sessions by transport, connections, held connects, channels, subscriptions, and its Netty
 * side (event loops' pending tasks, direct memory). The counts over sessions walk them once per
 * scrape for all their gauges ({@link SessionCensus}); the subscriptions walk the channels.
 *
 * <p>Thread-safe: its list of meters is written only while binding.
 */
final class ServerGauges {
    /** The transports whose sessions are counted: the server's own, and its local (server-side) sessions. */
    static final List<String> TRANSPORTS = List.of("websocket", "long-polling", "callback-polling", "local");

    private final List<Meter> meters = new ArrayList<>();

    ServerGauges(NettyBayeuxServer server, MeterRegistry registry) {
        ServerCensus census = ((BayeuxServerImpl) server.bayeux()).census();
        // The session gauges share a walk of the sessions per scrape: index i for TRANSPORTS[i], the last for the held connects.
        int held = TRANSPORTS.size();
        SessionCensus sessions = new SessionCensus(census::sessionCounts, held + 1, System::nanoTime);
        for (int i = 0; i < TRANSPORTS.size(); i++) {
            String transport = TRANSPORTS.get(i);
            int gauge = i;
            meters.add(Gauge.builder("bayeux.sessions", sessions, s -> s.countsFor(gauge).sessions(transport))
                    .description("Sessions now, by the transport each last came over").tag("transport", transport)
                    .strongReference(true).register(registry));
        }
        meters.add(Gauge.builder("bayeux.connections", server, NettyBayeuxServer::connectionCount)
                .description("Network connections open now (HTTP and WebSocket)").register(registry));
        meters.add(Gauge.builder("bayeux.connects.held", sessions, s -> s.countsFor(held).heldConnects())
                .description("Long-polling /meta/connect requests held now").strongReference(true).register(registry));
        meters.add(Gauge.builder("bayeux.channels", census, ServerCensus::channels)
                .description("Channels now, meta channels included").register(registry));
        meters.add(Gauge.builder("bayeux.subscriptions", census, ServerCensus::subscriptions)
                .description("Subscriptions now, summed over channels").register(registry));
        meters.add(Gauge.builder("bayeux.eventloop.pending.tasks", server, ServerGauges::pendingTasks)
                .description("Tasks waiting in the I/O event loops' queues now").register(registry));
        meters.add(Gauge.builder("bayeux.netty.direct.memory.used", ServerGauges::usedDirectMemory)
                .baseUnit("bytes").description("Direct memory Netty holds now (-1 when Netty does not count it)")
                .register(registry));
    }

    private static double pendingTasks(NettyBayeuxServer server) {
        long pending = 0;
        for (EventExecutor loop : server.ioLoops()) {
            if (loop instanceof SingleThreadEventExecutor single) {
                pending += single.pendingTasks();
            }
        }
        return pending;
    }

    private static double usedDirectMemory() {
        return PlatformDependent.usedDirectMemory();
    }

    /** Removes these gauges from {@code registry}. */
    void remove(MeterRegistry registry) {
        meters.forEach(registry::remove);
    }
}
