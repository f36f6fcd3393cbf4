package io.bayeux.oort;

import io.bayeux.server.spi.ReadinessCheck;

import java.util.Objects;

/**
 * A node's readiness as far as its Oort cloud goes, named {@code oort}: ready while the
 * {@link Oort} runs and is linked, both ways, with at least {@code minimumLinks} other nodes
 * (0: running is enough, as for the first node of a cluster). For a health endpoint (the metrics
 * module's {@code /health/ready}, or the application's own).
 *
 * <p>Thread-safe; answers from the Oort's state, without blocking.
 */
public final class OortReadiness implements ReadinessCheck {
    private final Oort oort;
    private final int minimumLinks;

    /** @throws IllegalArgumentException when {@code minimumLinks} is negative */
    public OortReadiness(Oort oort, int minimumLinks) {
        this.oort = Objects.requireNonNull(oort, "oort");
        if (minimumLinks < 0) {
            throw new IllegalArgumentException("minimumLinks must not be negative: " + minimumLinks);
        }
        this.minimumLinks = minimumLinks;
    }

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
        return links >= minimumLinks ? Result.READY : Result.notReady(links + " links up, " + minimumLinks + " needed");
    }

    @Override
    public String toString() {
        return "OortReadiness[" + oort.getURL() + ", " + minimumLinks + " links needed]";
    }
}
