package io.bayeux.load;

import java.util.Locale;

/** Figures as people read them. */
final class Format {
    private Format() {
    }

    /** Microseconds as µs, ms or s with three significant digits. */
    static String micros(double micros) {
        if (micros < 1000) {
            return String.format(Locale.ROOT, "%.0f µs", micros);
        }
        if (micros < 1_000_000) {
            return String.format(Locale.ROOT, "%.3g ms", micros / 1000);
        }
        return String.format(Locale.ROOT, "%.3g s", micros / 1e6);
    }

    static String bytes(Long bytes) {
        if (bytes == null) {
            return "-";
        }
        if (bytes < 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
        }
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024));
    }

    static String number(double value) {
        if (Math.abs(value) >= 100 || value == Math.rint(value)) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        return String.format(Locale.ROOT, "%.3g", value);
    }
}
