package io.bayeux.spring;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.SecurityPolicy;
import io.bayeux.transport.NettyBayeuxServer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;

/**
 * Auto-configures a Bayeux server from the {@code bayeux.*} properties ({@link BayeuxProperties}):
 * a {@link NettyBayeuxServer} bean built when the context starts, started by
 * {@link BayeuxServerLifecycle} once every singleton exists and stopped when the context closes;
 * its {@link BayeuxServer} as a bean; the project's {@code @Service} beans registered as annotated
 * services ({@link BayeuxServiceBeans}); the application's beans of the API's types handed to the
 * server ({@link BayeuxApiBeans}); with {@code bayeux.cluster}, the Oort or Redis cluster; and, with
 * {@code bayeux-auth-jwt} and {@code bayeux.token.*}, token authentication
 * ({@link TokenAuthenticationConfiguration}).
 *
 * <p>An application that defines its own {@code NettyBayeuxServer} bean (built, not started) keeps
 * it, and the lifecycle starts and stops it; {@code bayeux.enabled=false} turns all of this off.
 * {@link BayeuxServerCustomizer} beans change the builder before the server is built. A server or
 * cluster that does not start fails the context's start with a {@link BayeuxStartException}.
 */
@AutoConfiguration
@ConditionalOnClass(NettyBayeuxServer.class)
@ConditionalOnProperty(prefix = "bayeux", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(BayeuxProperties.class)
@Import({OortClusterConfiguration.class, RedisClusterConfiguration.class, TokenAuthenticationConfiguration.class})
public class BayeuxAutoConfiguration {

    /** Built, not started: the lifecycle starts it. Closed with the context even if it never started, to free its threads. */
    @Bean
    @ConditionalOnMissingBean
    public NettyBayeuxServer nettyBayeuxServer(BayeuxProperties properties, ObjectProvider<BayeuxServerCustomizer> customizers,
                                               ResourceLoader resourceLoader) {
        checkClusterModule(properties.getCluster(), resourceLoader.getClassLoader());
        checkTokenModule(properties.getToken(), resourceLoader.getClassLoader());
        NettyBayeuxServer.Builder builder = BayeuxServerFactory.builder(properties);
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }

    /** The server's core; no destroy method of its own: the server bean stops it. */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    public BayeuxServer bayeuxServer(NettyBayeuxServer server) {
        return server.bayeux();
    }

    @Bean
    @ConditionalOnMissingBean
    public BayeuxServerLifecycle bayeuxServerLifecycle(NettyBayeuxServer server, ConfigurableEnvironment environment) {
        return new BayeuxServerLifecycle(server, environment);
    }

    @Bean
    static BayeuxApiBeans bayeuxApiBeans(BayeuxServer bayeux, ObjectProvider<SecurityPolicy> policy,
                                         ObjectProvider<BayeuxServer.Extension> extensions,
                                         ObjectProvider<BayeuxServer.BayeuxServerListener> listeners,
                                         ObjectProvider<ChannelAuthorizer> authorizers) {
        return new BayeuxApiBeans(bayeux, policy, extensions, listeners, authorizers);
    }

    /** Static: a post-processor is made before the configuration class's own bean. */
    @Bean
    static BayeuxServiceBeans bayeuxServiceBeans() {
        return new BayeuxServiceBeans();
    }

    @Bean
    static BayeuxServiceBeans.Deregistration bayeuxServiceDeregistration(BayeuxServiceBeans services) {
        return new BayeuxServiceBeans.Deregistration(services);
    }

    /** Token properties without the module fail the start: a server meant to authenticate must not run open. */
    private static void checkTokenModule(BayeuxProperties.Token token, ClassLoader classLoader) {
        String property = token.getSecret() != null ? "bayeux.token.secret" : token.getJwksUrl() != null ? "bayeux.token.jwks-url" : null;
        if (property != null && !ClassUtils.isPresent("io.bayeux.auth.jwt.JwtAuthentication", classLoader)) {
            throw new InvalidConfigurationPropertyValueException(property, property.endsWith("secret") ? "(hidden)" : token.getJwksUrl(),
                    "the module io.bayeux:bayeux-auth-jwt is not on the class path: add it to the application's dependencies");
        }
    }

    /** A cluster named in the properties whose module is missing fails the start, instead of running a server alone. */
    private static void checkClusterModule(BayeuxProperties.ClusterKind cluster, ClassLoader classLoader) {
        String type = switch (cluster) {
            case NONE -> null;
            case OORT -> "io.bayeux.oort.Oort";
            case REDIS -> "io.bayeux.cluster.redis.RedisCluster";
        };
        if (type != null && !ClassUtils.isPresent(type, classLoader)) {
            String module = cluster == BayeuxProperties.ClusterKind.OORT ? "oort-cluster" : "cluster-redis";
            throw new InvalidConfigurationPropertyValueException("bayeux.cluster", cluster.name().toLowerCase(),
                    "the module io.bayeux:" + module + " is not on the class path: add it to the application's dependencies");
        }
    }
}
