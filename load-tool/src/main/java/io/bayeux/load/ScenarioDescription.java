package io.bayeux.load;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

/** A scenario as a run's report shows it: its settings by name, in a stable order. */
final class ScenarioDescription {
    private ScenarioDescription() {
    }

    static Map<String, Object> of(Scenario s) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("urls", s.urls().stream().map(URI::toString).toList());
        map.put("transport", s.transport());
        map.put("clients", s.clients());
        map.put("rooms", s.rooms());
        map.put("roomsPerClient", s.roomsPerClient());
        map.put("seed", s.seed());
        map.put("rampUpPerSecond", s.rampUpRate());
        map.put("batchSize", s.batchSize());
        map.put("batchIntervalMicros", s.batchInterval().toNanos() / 1000);
        map.put("batches", s.measuredBatches());
        map.put("warmupBatches", s.warmupBatches());
        map.put("messageSize", s.messageSize());
        map.put("oneFrameBatches", s.oneFrameBatches());
        map.put("spread", s.spread());
        map.put("offeredPublishedPerSecond", Math.round(s.offeredRate() * 100) / 100.0);
        map.put("selfDelivery", s.selfDelivery());
        map.put("idle", s.idle());
        if (s.idle()) {
            map.put("holdSeconds", s.hold().toMillis() / 1000.0);
        }
        map.put("ack", s.ack());
        if (s.stalledClients() > 0) {
            map.put("stalledClients", s.stalledClients());
        }
        if (s.soak() != null) {
            map.put("soakSeconds", s.soak().toMillis() / 1000.0);
        }
        if (s.cutEvery() != null) {
            map.put("cutEverySeconds", s.cutEvery().toMillis() / 1000.0);
        }
        if (s.cutFor() != null) {
            map.put("cutForSeconds", s.cutFor().toMillis() / 1000.0);
        }
        if (s.recover()) {
            map.put("recover", true);
        }
        return map;
    }
}
