package io.bayeux.common;

import java.time.Duration;

/** Durations as the command-line tools take them: {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, or plain seconds. */
public final class Durations {
    private Durations() {
    }

    /**
     * Parses {@code text}; {@code option} names the setting in the error.
     *
     * @throws IllegalArgumentException when it is not a duration
     */
    public static Duration parse(String text, String option) {
        String t = text.trim().toLowerCase();
        try {
            if (t.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            }
            double value = Double.parseDouble(t.replaceAll("[smh]$", ""));
            double seconds = t.endsWith("h") ? value * 3600 : t.endsWith("m") ? value * 60 : value;
            return Duration.ofMillis(Math.round(seconds * 1000));
        } catch (NumberFormatException x) {
            throw new IllegalArgumentException(option + ": not a duration (e.g. 30s, 10m, 1h, 500ms): " + text);
        }
    }
}
