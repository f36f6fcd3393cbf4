package io.bayeux.server.spi;

import java.util.Objects;

/**
 * One condition of a server's readiness to take traffic, beside serving at all: a cluster's
 * links up, its Redis reachable. A health endpoint (the metrics module's {@code /health/ready})
 * asks every check it was given at each probe and answers ready when all are.
 *
 * <p>Implementations answer from state they keep (a connection's status, a count of links),
 * quickly and without blocking or throwing: a probe may come every second. Thread-safe.
 */
public interface ReadinessCheck {
    /** The check's name in the health report, e.g. {@code oort} or {@code redis}. */
    String name();

    /** Whether the condition holds now, and why not when it does not. */
    Result check();

    /**
     * The answer of one check.
     *
     * @param ready  whether the condition holds
     * @param detail what an operator should know (e.g. {@code "2 of 3 links up"}), or null
     */
    record Result(boolean ready, String detail) {
        /** Ready, with nothing to tell. */
        public static final Result READY = new Result(true, null);

        /** Not ready, because of {@code detail}. */
        public static Result notReady(String detail) {
            return new Result(false, Objects.requireNonNull(detail, "detail"));
        }
    }
}
