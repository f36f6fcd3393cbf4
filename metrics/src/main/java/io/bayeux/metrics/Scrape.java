package io.bayeux.metrics;

import io.bayeux.transport.HttpRoute;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Map;

/**
 * The Prometheus scrape of a registry, in the format the scraper's {@code Accept} asks for:
 * OpenMetrics 1.0 when it names {@code application/openmetrics-text} (as Prometheus itself
 * does), else the text format 0.0.4. The registry writes straight into the reply's bytes, in a
 * buffer the size of the previous scrape (no text copied to a string and back).
 *
 * <p>Thread-safe: the size hint is a plain field, whose lost updates only cost a buffer's growth.
 */
final class Scrape {
    /** The content types of the two formats, as the Prometheus client library writes them (which the registry's scrape takes). */
    static final String TEXT = "text/plain; version=0.0.4; charset=utf-8";
    static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    /** The first scrape's buffer. */
    private static final int INITIAL_SIZE = 32 * 1024;

    private final PrometheusMeterRegistry registry;
    /** The previous scrape's length, plus room to grow: the next one's buffer. */
    private int sizeHint = INITIAL_SIZE;

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
        return new HttpRoute.Reply(200, type, scrape(type), Map.of());
    }

    /** The registry's scrape in the format of {@code contentType}. */
    byte[] scrape(String contentType) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(sizeHint);
        try {
            registry.scrape(out, contentType);
        } catch (IOException x) {
            throw new UncheckedIOException("cannot happen: a ByteArrayOutputStream", x);
        }
        sizeHint = out.size() + out.size() / 8;
        return out.toByteArray();
    }

    @Override
    public String toString() {
        return "Scrape[" + registry.getClass().getSimpleName() + "]";
    }
}
