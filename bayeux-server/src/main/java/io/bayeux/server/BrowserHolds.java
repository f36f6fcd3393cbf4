package io.bayeux.server;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How many long-polling connects each browser holds. Browsers allow few connections per
 * host, so a second tab holding a connect would starve the first: past the limit, the server
 * answers with the {@code multiple-clients} advice instead of holding.
 */
final class BrowserHolds {
    private final Map<String, Integer> holds = new ConcurrentHashMap<>();

    /** @return whether the browser may hold one more connect (and it is counted) */
    boolean tryAcquire(String browserId, int max) {
        if (max < 0) {
            return true;
        }
        boolean[] acquired = new boolean[1];
        holds.compute(browserId, (id, count) -> {
            int current = count == null ? 0 : count;
            acquired[0] = current < max;
            return acquired[0] ? current + 1 : current == 0 ? null : current;
        });
        return acquired[0];
    }

    void release(String browserId) {
        holds.computeIfPresent(browserId, (id, count) -> count <= 1 ? null : count - 1);
    }

    int holds(String browserId) {
        return holds.getOrDefault(browserId, 0);
    }
}
