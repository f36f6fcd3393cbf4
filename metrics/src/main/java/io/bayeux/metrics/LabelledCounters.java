package io.bayeux.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The counters of one meter name, one per value of one label, registered when a value is first
 * seen: a lookup in a concurrent map afterwards (no allocation, no lock). The values given at
 * construction (the transports' names, which the server passes as constants) are registered at
 * once and found by identity in a small array, before any map lookup. At most
 * {@value #MAX_VALUES} values: the later ones count under {@value #OTHER}, so a peer that sends
 * odd values cannot grow the registry.
 *
 * <p>Thread-safe.
 */
final class LabelledCounters {
    static final int MAX_VALUES = 32;
    static final String OTHER = "other";

    private final MeterRegistry registry;
    private final String name;
    private final String description;
    private final String baseUnit;
    private final String label;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Function<String, Counter> register = this::register;
    /** The values given at construction, and their counters at the same indexes. */
    private final String[] known;
    private final Counter[] knownCounters;

    LabelledCounters(MeterRegistry registry, String name, String description, String baseUnit, String label, List<String> known) {
        this.registry = registry;
        this.name = name;
        this.description = description;
        this.baseUnit = baseUnit;
        this.label = label;
        this.known = known.toArray(String[]::new);
        this.knownCounters = new Counter[this.known.length];
        for (int i = 0; i < this.known.length; i++) {
            knownCounters[i] = counters.computeIfAbsent(this.known[i], register);
        }
    }

    /** The counter of {@code value}, registered now when it is the first time. */
    Counter get(String value) {
        for (int i = 0; i < known.length; i++) {
            if (known[i] == value) {
                return knownCounters[i];
            }
        }
        Counter counter = counters.get(value);
        if (counter != null) {
            return counter;
        }
        if (counters.size() >= MAX_VALUES) {
            return counters.computeIfAbsent(OTHER, register);
        }
        return counters.computeIfAbsent(value, register);
    }

    private Counter register(String value) {
        return Counter.builder(name).description(description).baseUnit(baseUnit)
                .tags(Tags.of(label, value)).register(registry);
    }

    /** Removes every counter this made from the registry. */
    void remove() {
        counters.values().forEach(registry::remove);
        counters.clear();
    }

    @Override
    public String toString() {
        return "LabelledCounters[" + name + " by " + label + ", " + counters.keySet() + "]";
    }
}
