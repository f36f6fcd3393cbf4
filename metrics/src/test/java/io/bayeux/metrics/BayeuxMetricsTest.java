package io.bayeux.metrics;

import io.bayeux.transport.NettyBayeuxServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link BayeuxMetrics}: the JVM's meters with {@code bind}, none with {@code bindWithoutJvm}. */
class BayeuxMetricsTest {
    private static boolean hasJvmMeters(SimpleMeterRegistry registry) {
        return registry.getMeters().stream().anyMatch(meter -> meter.getId().getName().startsWith("jvm."));
    }

    @Test
    void bindingWithoutTheJvmLeavesItsMetersToTheApplication() {
        NettyBayeuxServer server = NettyBayeuxServer.builder().port(0).build();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (BayeuxMetrics metrics = BayeuxMetrics.bindWithoutJvm(server, registry)) {
            assertFalse(hasJvmMeters(registry), registry.getMetersAsString());
            assertTrue(registry.getMeters().stream().anyMatch(meter -> meter.getId().getName().startsWith("bayeux.")));
        }
        SimpleMeterRegistry withJvm = new SimpleMeterRegistry();
        try (BayeuxMetrics metrics = BayeuxMetrics.bind(server, withJvm)) {
            assertTrue(hasJvmMeters(withJvm));
        }
    }
}
