package io.bayeux.load;

import java.util.List;
import java.util.Map;

/**
 * An A/B comparison: the same scenario against two servers, {@code rounds} rounds of one run
 * each, in ABBA order (A B, B A, A B, ...) so that a drift of the machine over time weighs on
 * both sides alike.
 *
 * @param a       the command that starts server A
 * @param b       the command that starts server B
 * @param rounds  rounds (one run of each per round)
 * @param order   the labels of the runs in the order they ran
 * @param metrics per metric: the medians of each side and the A/B ratio with its spread
 * @param runs    every run that completed, in order
 * @param failedRuns the runs that could not be carried out (a server that did not start, clients
 *                that could not all connect): label and reason; the metrics leave them out
 */
public record Comparison(String a, String b, int rounds, List<String> order, List<Metric> metrics, List<RunResult> runs,
                         Map<String, String> failedRuns) {

    /**
     * One metric over the runs of both sides.
     *
     * @param name           e.g. {@code delivered msg/s}
     * @param higherIsBetter whether more is better
     * @param medianA        the median of A's runs
     * @param minA           the smallest of A's runs
     * @param maxA           the largest of A's runs
     * @param ratio          the median of the per-round ratios A/B (null when B's value is 0 or missing)
     * @param ratioMin       the smallest per-round ratio
     * @param ratioMax       the largest per-round ratio
     */
    public record Metric(String name, boolean higherIsBetter, Double medianA, Double minA, Double maxA,
                         Double medianB, Double minB, Double maxB, Double ratio, Double ratioMin, Double ratioMax) {
    }
}
