package io.bayeux.spring;

import io.bayeux.oort.Oort;
import io.bayeux.oort.OortConfig;
import io.bayeux.oort.seti.Seti;
import io.bayeux.server.spi.ReadinessCheck;
import io.bayeux.transport.NettyBayeuxServer;
import org.springframework.context.SmartLifecycle;

/**
 * The auto-configured server as a node of an Oort cloud ({@code bayeux.cluster=oort}): once the
 * server listens, starts its {@link Oort} (at {@code bayeux.oort.url}, or the server's own
 * endpoint) and {@link Seti}, then dials the peers, as {@code OortNode} does; stops them before
 * the server stops, so the other nodes see this one leave. Spring calls start and stop from one
 * thread at a time.
 */
public final class OortMember implements SmartLifecycle, ClusterPresence {
    private final NettyBayeuxServer server;
    private final OortConfig config;
    /** Set by {@link #start()}; volatile for readers on other threads. */
    private volatile Oort oort;
    private volatile Seti seti;

    public OortMember(NettyBayeuxServer server, OortConfig config) {
        this.server = server;
        this.config = config.validate();
    }

    @Override
    public void start() {
        String url = config.url() != null ? config.url() : server.uri().toString();
        Oort started = config.newOort(server.bayeux(), url);
        Seti presence = null;
        try {
            started.start();
            // Seti observes its channels before the first link, so that no snapshot is missed.
            presence = new Seti(started);
            presence.start();
            config.observePeers(started);
        } catch (RuntimeException | Error x) {
            try {
                stop(presence, started);
            } catch (RuntimeException y) {
                x.addSuppressed(y);
            }
            throw new BayeuxStartException("The Oort node " + url + " did not start",
                    "Check the bayeux.oort.* properties, and that the application has io.bayeux:bayeux-client-java (Oort's links) at run time.", x);
        }
        oort = started;
        seti = presence;
    }

    @Override
    public void stop() {
        Seti presence = seti;
        Oort started = oort;
        seti = null;
        oort = null;
        stop(presence, started);
    }

    private static void stop(Seti presence, Oort started) {
        try {
            if (presence != null) {
                presence.stop();
            }
        } finally {
            if (started != null) {
                started.stop();
            }
        }
    }

    @Override
    public boolean isRunning() {
        return oort != null;
    }

    /** After the server starts (the Oort needs its address), so before it stops. */
    @Override
    public int getPhase() {
        return BayeuxServerLifecycle.PHASE + 1;
    }

    /** The running Oort, or null when stopped. */
    public Oort oort() {
        return oort;
    }

    /** The running Seti, or null when stopped. */
    public Seti seti() {
        return seti;
    }

    /**
     * The node's readiness, named {@code oort}: ready while its Oort runs and, when
     * {@code bayeux.oort.peers} names nodes, once it is linked with at least one other node (a
     * node without peers may be the first of its cloud).
     */
    public ReadinessCheck readiness() {
        int minimumLinks = config.peers().isEmpty() ? 0 : 1;
        return new ReadinessCheck() {
            @Override
            public String name() {
                return "oort";
            }

            @Override
            public Result check() {
                Oort running = oort;
                if (running == null || !running.isRunning()) {
                    return Result.notReady("Oort is not running");
                }
                int links = running.getKnownComets().size();
                return links >= minimumLinks ? Result.READY : Result.notReady(links + " links up, " + minimumLinks + " needed");
            }
        };
    }

    @Override
    public String toString() {
        return "OortMember[" + config + "]";
    }
}
