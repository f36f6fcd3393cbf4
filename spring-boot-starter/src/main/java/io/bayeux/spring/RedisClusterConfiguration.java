package io.bayeux.spring;

import io.bayeux.cluster.redis.RedisConfig;
import io.bayeux.server.spi.ReadinessCheck;
import io.bayeux.transport.NettyBayeuxServer;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code bayeux.cluster=redis}: the server joins the cluster on the Redis that {@code bayeux.redis.*} names. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "io.bayeux.cluster.redis.RedisCluster")
@ConditionalOnProperty(prefix = "bayeux", name = "cluster", havingValue = "redis")
class RedisClusterConfiguration {

    @Bean
    RedisMember bayeuxRedisMember(NettyBayeuxServer server, BayeuxProperties properties) {
        return new RedisMember(server, config(properties.getRedis()));
    }

    /** Asked by the {@code bayeux} health component when the application has Actuator. */
    @Bean
    ReadinessCheck bayeuxRedisReadiness(RedisMember member) {
        return member.readiness();
    }

    /** The Redis config; the builder checks every setting at once, and names the bad one. */
    static RedisConfig config(BayeuxProperties.Redis r) {
        RedisConfig.Builder b = RedisConfig.builder().uri(r.getUri()).channels(r.getChannels()).presence(r.isPresence())
                .presenceTtl(r.getPresenceTtl()).prefix(r.getPrefix()).bufferSize(r.getBufferSize())
                .maxReconnectDelay(r.getMaxReconnectDelay()).settleDelay(r.getSettleDelay());
        RedisConfig[] built = new RedisConfig[1];
        BayeuxServerFactory.set("bayeux.redis", r.getUri(), () -> built[0] = b.build());
        return built[0];
    }
}
