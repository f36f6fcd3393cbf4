package io.bayeux.spring;

import io.bayeux.metrics.BayeuxMetrics;
import io.bayeux.server.spi.ReadinessCheck;
import io.bayeux.transport.NettyBayeuxServer;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The auto-configured server in Spring Boot Actuator, each part only when the application has
 * what it needs, so that one without Actuator loads none of it:
 *
 * <ul>
 *   <li>with {@code io.bayeux:bayeux-metrics} and a Micrometer {@link MeterRegistry} bean (Actuator's
 *       {@code spring-boot-micrometer-metrics} makes one), the server's meters bound to it by
 *       {@link BayeuxMetrics#bindWithoutJvm} (Boot binds the JVM's), before the server starts, and
 *       unbound when the context closes; and
 *       those of its cluster ({@code OortMeters}, {@code RedisMeters});</li>
 *   <li>with {@code spring-boot-health}, the {@code bayeux} health component
 *       ({@link BayeuxHealthIndicator}), which asks every {@link ReadinessCheck} bean: the
 *       cluster's ({@code oort}, {@code redis}) and the application's own;
 *       {@code management.health.bayeux.enabled=false} turns it off.</li>
 * </ul>
 */
@AutoConfiguration(after = BayeuxAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration"})
@ConditionalOnBean(NettyBayeuxServer.class)
public class BayeuxActuatorAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"io.bayeux.metrics.BayeuxMetrics", "io.micrometer.core.instrument.MeterRegistry"})
    @ConditionalOnBean(MeterRegistry.class)
    static class MetersConfiguration {
        /** A singleton, so bound before the lifecycle starts the server: every connection's bytes count. */
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        BayeuxMetrics bayeuxMetrics(NettyBayeuxServer server, MeterRegistry registry) {
            // Boot binds the JVM's meters itself: binding them again would count each GC twice.
            return BayeuxMetrics.bindWithoutJvm(server, registry);
        }

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(name = "io.bayeux.oort.Oort")
        @ConditionalOnBean(OortMember.class)
        static class OortMetersConfiguration {
            @Bean
            OortMeters bayeuxOortMeters(OortMember member, MeterRegistry registry) {
                return new OortMeters(member, registry);
            }
        }

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(name = "io.bayeux.cluster.redis.RedisCluster")
        @ConditionalOnBean(RedisMember.class)
        static class RedisMetersConfiguration {
            @Bean(destroyMethod = "close")
            RedisMeters bayeuxRedisMeters(RedisMember member, MeterRegistry registry) {
                return new RedisMeters(member, registry);
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    @ConditionalOnEnabledHealthIndicator("bayeux")
    static class HealthConfiguration {
        /** Named so that Actuator calls the component {@code bayeux}. */
        @Bean
        @ConditionalOnMissingBean(name = "bayeuxHealthIndicator")
        HealthIndicator bayeuxHealthIndicator(NettyBayeuxServer server, ObjectProvider<ReadinessCheck> checks) {
            return new BayeuxHealthIndicator(server, () -> checks.orderedStream().toList());
        }
    }
}
