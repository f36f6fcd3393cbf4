package io.bayeux.spring;

import java.util.Objects;

/**
 * The server or its cluster did not start with the application context (a port in use, a Redis
 * that cannot be reached): it fails the context's start, and {@link BayeuxStartFailureAnalyzer}
 * reports it, with its cause and what to do about it, as Spring Boot reports a failed start.
 */
public final class BayeuxStartException extends RuntimeException {
    private final String action;

    /**
     * @param what   what did not start, e.g. "The Bayeux server did not start on 127.0.0.1:8080"
     * @param action what the reader may do about it
     * @param cause  why
     */
    public BayeuxStartException(String what, String action, Throwable cause) {
        super(what, Objects.requireNonNull(cause, "cause"));
        this.action = Objects.requireNonNull(action, "action");
    }

    /** What the reader may do about it. */
    public String action() {
        return action;
    }
}
