package io.bayeux.load;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The {@code --windows} rows of a comparison: for each window that every run has (the runs of
 * one comparison share their scenario, so they have the same windows), its deliveries/s,
 * latency p50, p99 and max, and what was lost, A against B.
 */
final class WindowMetrics {
    private WindowMetrics() {
    }

    /** The windows' metrics, window by window; empty when the runs have no windows. */
    static List<Comparison.Metric> of(List<RunResult> runs) {
        int count = runs.stream().mapToInt(r -> r.windows() == null ? 0 : r.windows().size()).min().orElse(0);
        List<Comparison.Metric> metrics = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            RunResult.Window first = runs.get(0).windows().get(i);
            String name = Summary.window(first) + ": ";
            int index = i;
            metrics.add(CompareCommand.metric(runs, name + "delivered msg/s", true, at(index, RunResult.Window::deliveredPerSecond)));
            metrics.add(CompareCommand.metric(runs, name + "p50 (µs)", false, at(index, RunResult.Window::p50)));
            metrics.add(CompareCommand.metric(runs, name + "p99 (µs)", false, at(index, RunResult.Window::p99)));
            metrics.add(CompareCommand.metric(runs, name + "max (µs)", false, at(index, RunResult.Window::max)));
            metrics.add(CompareCommand.metric(runs, name + "lost", false, at(index, RunResult.Window::lost)));
        }
        return metrics;
    }

    private static ToDoubleFunction<RunResult> at(int index, ToDoubleFunction<RunResult.Window> figure) {
        return r -> figure.applyAsDouble(r.windows().get(index));
    }
}
