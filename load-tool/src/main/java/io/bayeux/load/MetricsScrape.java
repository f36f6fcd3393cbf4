package io.bayeux.load;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The server's figures read from its Prometheus scrape endpoint ({@code /metrics} on the
 * server's own origin, as {@code bayeux-metrics} serves it), for a server without the load
 * tool's stats service: in the stats service's terms ({@code sessions}, {@code heapUsedBytes},
 * {@code cpuNanos}, {@code gcCount}, {@code gcMillis}), plus the mean queue depth at flush
 * ({@code queueDepthMean}) and {@code source: metrics}.
 *
 * <p>Reads only the few series it needs from the text format (name, labels, value per line):
 * the Java Prometheus client writes that format but has no reader. Stateless.
 */
final class MetricsScrape {
    static final String PATH = "/metrics";
    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    private MetricsScrape() {
    }

    /** The figures of the server whose Bayeux endpoint is {@code endpoint}, or null when it serves no scrape there. */
    static Map<String, Object> stats(URI endpoint) {
        URI metrics = endpoint.resolve(PATH);
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build()) {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(metrics).timeout(TIMEOUT)
                    .header("Accept", "text/plain;version=0.0.4").GET().build(), HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? figures(response.body()) : null;
        } catch (IOException | IllegalArgumentException x) {
            return null;
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The figures in a scrape in the text format; null when it has none of this project's meters. */
    static Map<String, Object> figures(String scrape) {
        double sessions = 0;
        double heap = 0;
        double cpuNanos = -1;
        double gcCount = 0;
        double gcSeconds = 0;
        double depthSum = 0;
        double depthCount = 0;
        boolean bayeux = false;
        for (String line : scrape.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int nameEnd = indexOfAny(line, '{', ' ');
            int valueStart = line.lastIndexOf('}') < 0 ? nameEnd + 1 : line.lastIndexOf('}') + 2;
            if (nameEnd < 0 || valueStart >= line.length()) {
                continue;
            }
            String name = line.substring(0, nameEnd);
            String labels = line.charAt(nameEnd) == '{' ? line.substring(nameEnd, valueStart - 1) : "";
            String[] rest = line.substring(valueStart).trim().split(" ");
            double value;
            try {
                value = Double.parseDouble(rest[0]);
            } catch (NumberFormatException x) {
                continue;
            }
            switch (name) {
                case "bayeux_sessions" -> {
                    sessions += value;
                    bayeux = true;
                }
                case "jvm_memory_used_bytes" -> heap += labels.contains("area=\"heap\"") ? value : 0;
                case "process_cpu_time_ns_total" -> cpuNanos = value;
                case "jvm_gc_pause_seconds_count" -> gcCount += value;
                case "jvm_gc_pause_seconds_sum" -> gcSeconds += value;
                case "bayeux_queue_depth_messages_sum" -> depthSum = value;
                case "bayeux_queue_depth_messages_count" -> depthCount = value;
                default -> { }
            }
        }
        if (!bayeux) {
            return null;
        }
        Map<String, Object> stats = new HashMap<>();
        stats.put("source", "metrics");
        stats.put("sessions", (long) sessions);
        stats.put("heapUsedBytes", (long) heap);
        if (cpuNanos >= 0) {
            stats.put("cpuNanos", (long) cpuNanos);
        }
        stats.put("gcCount", (long) gcCount);
        stats.put("gcMillis", Math.round(gcSeconds * 1000));
        if (depthCount > 0) {
            stats.put("queueDepthMean", depthSum / depthCount);
        }
        return stats;
    }

    private static int indexOfAny(String line, char a, char b) {
        int i = line.indexOf(a);
        int j = line.indexOf(b);
        return i < 0 ? j : j < 0 ? i : Math.min(i, j);
    }
}
