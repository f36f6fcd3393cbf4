package io.bayeux.metrics;

import io.bayeux.transport.HttpRoute;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * The Prometheus scrape of a registry, in the format the scraper's {@code Accept} asks for:
 * OpenMetrics 1.0 when it names {@code application/openmetrics-text} (as Prometheus itself
 * does), else the text format 0.0.4. Stateless, thread-safe.
 */
final class Scrape {
    /** The content types of the two formats, as the Prometheus client library writes them (which the registry's scrape takes). */
    static final String TEXT = "text/plain; version=0.0.4; charset=utf-8";
    static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    private final PrometheusMeterRegistry registry;

    Scrape(PrometheusMeterRegistry registry) {
        this.registry = registry;
    }

    /** The content type answered to {@code accept} (which may be null). */
    static String contentType(String accept) {
        return accept != null && accept.toLowerCase(Locale.ROOT).contains("application/openmetrics-text") ? OPENMETRICS : TEXT;
    }

    HttpRoute.Reply answer(HttpRoute.Request request) {
        if (!request.method().equals("GET") && !request.method().equals("HEAD")) {
            return HttpRoute.Reply.text(405, "Method Not Allowed: " + request.method()).withHeader("Allow", "GET, HEAD");
        }
        String type = contentType(request.header("Accept"));
        return new HttpRoute.Reply(200, type, registry.scrape(type).getBytes(StandardCharsets.UTF_8), Map.of());
    }

    @Override
    public String toString() {
        return "Scrape[" + registry.getClass().getSimpleName() + "]";
    }
}
