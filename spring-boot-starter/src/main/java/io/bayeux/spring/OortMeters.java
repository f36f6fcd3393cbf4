package io.bayeux.spring;

import io.bayeux.metrics.OortMetrics;
import io.bayeux.metrics.PresenceMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.context.SmartLifecycle;

/**
 * The meters of the auto-configured Oort node ({@code bayeux.oort.*}, {@code bayeux.presence.*})
 * in Actuator's registry, bound once the node runs (its Oort exists only then) and removed when it
 * stops. Spring calls start and stop from one thread at a time.
 */
final class OortMeters implements SmartLifecycle {
    private final OortMember member;
    private final MeterRegistry registry;
    /** Set by {@link #start()}, cleared by {@link #stop()}; volatile for {@link #isRunning()} on any thread. */
    private volatile OortMetrics oort;
    private volatile PresenceMetrics presence;

    OortMeters(OortMember member, MeterRegistry registry) {
        this.member = member;
        this.registry = registry;
    }

    @Override
    public void start() {
        oort = OortMetrics.bind(member.oort(), registry);
        presence = PresenceMetrics.bind(member.seti(), registry);
    }

    @Override
    public void stop() {
        OortMetrics o = oort;
        PresenceMetrics p = presence;
        oort = null;
        presence = null;
        if (p != null) {
            p.close();
        }
        if (o != null) {
            o.close();
        }
    }

    @Override
    public boolean isRunning() {
        return oort != null;
    }

    /** After the node starts, so before it stops. */
    @Override
    public int getPhase() {
        return BayeuxServerLifecycle.PHASE + 2;
    }

    @Override
    public String toString() {
        return "OortMeters[" + member + "]";
    }
}
