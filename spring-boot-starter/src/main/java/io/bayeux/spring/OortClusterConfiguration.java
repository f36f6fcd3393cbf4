package io.bayeux.spring;

import io.bayeux.oort.OortConfig;
import io.bayeux.server.spi.ReadinessCheck;
import io.bayeux.transport.NettyBayeuxServer;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@code bayeux.cluster=oort}: the server joins the Oort cloud that {@code bayeux.oort.*} describes. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = "io.bayeux.oort.Oort")
@ConditionalOnProperty(prefix = "bayeux", name = "cluster", havingValue = "oort")
class OortClusterConfiguration {

    @Bean
    OortMember bayeuxOortMember(NettyBayeuxServer server, BayeuxProperties properties) {
        return new OortMember(server, config(properties.getOort()));
    }

    /** Asked by the {@code bayeux} health component when the application has Actuator. */
    @Bean
    ReadinessCheck bayeuxOortReadiness(OortMember member) {
        return member.readiness();
    }

    /** The Oort config, each refused value failing the start with the property's name. */
    static OortConfig config(BayeuxProperties.Oort o) {
        OortConfig.Builder b = OortConfig.builder();
        if (o.getUrl() != null) {
            b.url(o.getUrl());
        }
        if (o.getSecret() != null) {
            BayeuxServerFactory.set("bayeux.oort.secret", "(hidden)", () -> b.secret(o.getSecret()));
        }
        b.peers(o.getPeers()).channels(o.getChannels()).clientWebSocket(o.isClientWebsocket());
        BayeuxServerFactory.set("bayeux.oort.failure-timeout", o.getFailureTimeout(), () -> b.failureTimeout(o.getFailureTimeout()));
        BayeuxServerFactory.set("bayeux.oort.max-backoff", o.getMaxBackoff(), () -> b.maxBackoff(o.getMaxBackoff()));
        OortConfig config = b.build();
        // The config names the bad setting (url, peer, channel, secret) in its message.
        BayeuxServerFactory.set("bayeux.oort", config, config::validate);
        return config;
    }
}
