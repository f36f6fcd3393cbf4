package io.bayeux.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a {@link BayeuxStartException} in Spring Boot's "APPLICATION FAILED TO START" report:
 * what did not start, the chain of causes, and what to do. Without it, Spring Boot logs a failed
 * lifecycle start at debug level only, and the reason would not show. Stateless.
 */
public final class BayeuxStartFailureAnalyzer extends AbstractFailureAnalyzer<BayeuxStartException> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, BayeuxStartException failure) {
        StringBuilder description = new StringBuilder(failure.getMessage());
        for (Throwable cause = failure.getCause(); cause != null; cause = cause.getCause()) {
            description.append("\n    caused by ").append(cause.getClass().getName()).append(": ").append(cause.getMessage());
        }
        return new FailureAnalysis(description.toString(), failure.action(), failure);
    }
}
