package io.bayeux.spring;

import io.bayeux.metrics.BayeuxMetrics;
import io.bayeux.server.spi.ReadinessCheck;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the Actuator auto-configuration adds, by what the application has. */
class BayeuxActuatorAutoConfigurationTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BayeuxAutoConfiguration.class, BayeuxActuatorAutoConfiguration.class))
            .withPropertyValues("bayeux.port=0", "bayeux.host=127.0.0.1");

    @Test
    void anApplicationWithoutActuatorGetsNeitherMetersNorHealth() {
        runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class, MeterRegistry.class, BayeuxMetrics.class)).run(context -> {
            assertNull(context.getStartupFailure());
            assertTrue(context.getBeansOfType(HealthIndicator.class).isEmpty());
            assertTrue(context.getBeansOfType(BayeuxMetrics.class).isEmpty());
        });
    }

    @Test
    void aMeterRegistryBeanGetsTheServersMeters() {
        runner.withBean(SimpleMeterRegistry.class).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertEquals(registry, context.getBean(BayeuxMetrics.class).registry());
            assertNotNull(registry.find("bayeux.connections").gauge());
        });
    }

    @Test
    void anOortNodesMetersAreBoundWhileItRuns() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        runner.withBean(SimpleMeterRegistry.class, () -> registry).withPropertyValues("bayeux.cluster=oort", "bayeux.oort.secret=S").run(context -> {
            assertEquals(0.0, registry.get("bayeux.oort.links.up").gauge().value());
            assertEquals(0.0, registry.get("bayeux.presence.users").gauge().value());
        });
        assertNull(registry.find("bayeux.oort.links.up").gauge(), "removed when the node stopped");
        assertNull(registry.find("bayeux.connections").gauge(), "removed when the context closed");
    }

    @Test
    void noMeterRegistryNoMeters() {
        runner.run(context -> assertTrue(context.getBeansOfType(BayeuxMetrics.class).isEmpty()));
    }

    @Test
    void theHealthComponentAsksEveryReadinessCheckBean() {
        ReadinessCheck failing = new ReadinessCheck() {
            @Override
            public String name() {
                return "failing";
            }

            @Override
            public Result check() {
                throw new IllegalStateException("broken");
            }
        };
        runner.run(context -> assertEquals(Status.UP, context.getBean("bayeuxHealthIndicator", HealthIndicator.class).health().getStatus()));
        runner.withBean("failing", ReadinessCheck.class, () -> failing).run(context -> {
            Health health = context.getBean("bayeuxHealthIndicator", HealthIndicator.class).health();
            assertEquals(Status.OUT_OF_SERVICE, health.getStatus());
            Map<?, ?> checks = (Map<?, ?>) health.getDetails().get("checks");
            assertEquals(Map.of("ready", false, "detail", "java.lang.IllegalStateException: broken"), checks.get("failing"));
        });
    }

    @Test
    void theHealthComponentCanBeTurnedOff() {
        runner.withPropertyValues("management.health.bayeux.enabled=false")
                .run(context -> assertTrue(context.getBeansOfType(HealthIndicator.class).isEmpty()));
    }

    @Test
    void anOortNodeIsReadyOnceRunningAndLinkedWhenItHasPeers() {
        runner.withPropertyValues("bayeux.cluster=oort", "bayeux.oort.secret=S").run(context -> {
            Health health = context.getBean("bayeuxHealthIndicator", HealthIndicator.class).health();
            assertEquals(Status.UP, health.getStatus(), health::toString);
            assertEquals(Map.of("ready", true), ((Map<?, ?>) health.getDetails().get("checks")).get("oort"));
        });
        runner.withPropertyValues("bayeux.cluster=oort", "bayeux.oort.secret=S", "bayeux.oort.peers=http://127.0.0.1:1/cometd").run(context -> {
            Health health = context.getBean("bayeuxHealthIndicator", HealthIndicator.class).health();
            assertEquals(Status.OUT_OF_SERVICE, health.getStatus(), health::toString);
            assertEquals(Map.of("ready", false, "detail", "0 links up, 1 needed"), ((Map<?, ?>) health.getDetails().get("checks")).get("oort"));
        });
    }
}
