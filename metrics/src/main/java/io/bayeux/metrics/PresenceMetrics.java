package io.bayeux.metrics;

import io.bayeux.presence.Presence;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The meters of a cluster's presence ({@code Seti} on Oort, {@code RedisSeti} on Redis): users
 * present in the cluster ({@code bayeux_presence_users}), users of this node
 * ({@code bayeux_presence_users_local}) and the nodes they are on
 * ({@code bayeux_presence_nodes}), each counted at the scrape (in O(users) for the nodes).
 *
 * <p>Thread-safe; {@link #close()} removes its meters.
 */
public final class PresenceMetrics implements AutoCloseable {
    private final MeterRegistry registry;
    private final List<Meter> meters;

    private PresenceMetrics(Presence presence, MeterRegistry registry) {
        this.registry = registry;
        this.meters = List.of(
                Gauge.builder("bayeux.presence.users", presence, p -> p.getUserIds().size())
                        .description("Users present in the cluster now").register(registry),
                Gauge.builder("bayeux.presence.users.local", presence, p -> p.getAssociatedUserIds().size())
                        .description("Users with a session on this node now").register(registry),
                Gauge.builder("bayeux.presence.nodes", presence, PresenceMetrics::nodes)
                        .description("Nodes that users are present on now").register(registry));
    }

    public static PresenceMetrics bind(Presence presence, MeterRegistry registry) {
        return new PresenceMetrics(Objects.requireNonNull(presence, "presence"), Objects.requireNonNull(registry, "registry"));
    }

    private static int nodes(Presence presence) {
        Set<String> nodes = new HashSet<>();
        for (String user : presence.getUserIds()) {
            nodes.addAll(presence.getNodes(user));
        }
        return nodes.size();
    }

    @Override
    public void close() {
        meters.forEach(registry::remove);
    }
}
