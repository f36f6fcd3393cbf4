package io.bayeux.load;

import io.bayeux.client.ext.RecoveryExtension;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the clients' {@link RecoveryExtension}s tell ({@code --recover}), summed over every
 * client: subscriptions recovered and the messages replayed to them, subscriptions not
 * recovered by reason. Thread-safe (adders): the clients' event loops report concurrently.
 */
final class RecoveryCount implements RecoveryExtension.Listener {
    private final LongAdder recovered = new LongAdder();
    private final LongAdder replayed = new LongAdder();
    private final ConcurrentHashMap<String, LongAdder> unrecovered = new ConcurrentHashMap<>();

    @Override
    public void onRecovery(String channel, RecoveryExtension.Outcome outcome) {
        if (outcome.recovered()) {
            recovered.increment();
            replayed.add(outcome.replayed());
        } else {
            unrecovered.computeIfAbsent(String.valueOf(outcome.reason()), reason -> new LongAdder()).increment();
        }
    }

    /** The figures so far. */
    RunResult.Recovery figures() {
        Map<String, Long> reasons = new TreeMap<>();
        unrecovered.forEach((reason, count) -> reasons.put(reason, count.sum()));
        long notRecovered = reasons.values().stream().mapToLong(Long::longValue).sum();
        return new RunResult.Recovery(recovered.sum(), notRecovered, reasons, replayed.sum());
    }
}
