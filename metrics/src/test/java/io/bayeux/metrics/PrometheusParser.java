package io.bayeux.metrics;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Parses a scrape with the Prometheus project's own parser ({@code prometheus_client.parser},
 * Debian's {@code python3-prometheus-client}), run as a child process that answers JSON: a
 * scrape that parser refuses fails the test.
 */
final class PrometheusParser {
    /** Debian's Python, which sees Debian's python3-prometheus-client (bin/test installs it). */
    private static final String PYTHON = "/usr/bin/python3";
    private static final ObjectMapper JSON = new ObjectMapper().enable(JsonParser.Feature.ALLOW_NON_NUMERIC_NUMBERS);

    /** One sample: its full name ({@code _total}, {@code _bucket}... included), labels, value. */
    record Sample(String name, Map<String, String> labels, double value) {
    }

    /** One family: its type as the parser tells it ({@code counter}, {@code gauge}, {@code histogram}...) and samples. */
    record Family(String type, List<Sample> samples) {
        /** The value of the sample named {@code name} whose labels include {@code labels} (name, value, ...), or NaN when none. */
        double value(String name, String... labels) {
            for (Sample sample : samples) {
                if (sample.name().equals(name) && matches(sample.labels(), labels)) {
                    return sample.value();
                }
            }
            return Double.NaN;
        }

        /** The sum of the samples named {@code name} whose labels include {@code labels}. */
        double sum(String name, String... labels) {
            double sum = 0;
            for (Sample sample : samples) {
                if (sample.name().equals(name) && matches(sample.labels(), labels)) {
                    sum += sample.value();
                }
            }
            return sum;
        }

        private static boolean matches(Map<String, String> actual, String[] labels) {
            for (int i = 0; i < labels.length; i += 2) {
                if (!Objects.equals(actual.get(labels[i]), labels[i + 1])) {
                    return false;
                }
            }
            return true;
        }
    }

    private PrometheusParser() {
    }

    /**
     * The families of {@code scrape}, by name as the parser gives it (a counter's without
     * {@code _total}).
     *
     * @param format {@code text} (0.0.4) or {@code openmetrics}
     */
    static Map<String, Family> parse(String scrape, String format) throws IOException, InterruptedException {
        Path script = Files.createTempFile("parse_metrics", ".py");
        try (InputStream in = Objects.requireNonNull(PrometheusParser.class.getResourceAsStream("/parse_metrics.py"))) {
            Files.write(script, in.readAllBytes());
            Process process = new ProcessBuilder(PYTHON, script.toString(), format).start();
            try {
                try (OutputStream stdin = process.getOutputStream()) {
                    stdin.write(scrape.getBytes(StandardCharsets.UTF_8));
                }
                byte[] out = process.getInputStream().readAllBytes();
                String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                    throw new AssertionError("The Prometheus parser refused the scrape: " + err + "\n" + scrape);
                }
                return families(JSON.readTree(out));
            } finally {
                process.destroyForcibly();
            }
        } finally {
            Files.deleteIfExists(script);
        }
    }

    private static Map<String, Family> families(JsonNode root) {
        Map<String, Family> families = new HashMap<>();
        root.properties().forEach(entry -> {
            List<Sample> samples = new ArrayList<>();
            for (JsonNode sample : entry.getValue().get("samples")) {
                Map<String, String> labels = new HashMap<>();
                sample.get("labels").properties().forEach(label -> labels.put(label.getKey(), label.getValue().asText()));
                samples.add(new Sample(sample.get("name").asText(), labels, sample.get("value").asDouble()));
            }
            families.put(entry.getKey(), new Family(entry.getValue().get("type").asText(), samples));
        });
        return families;
    }
}
