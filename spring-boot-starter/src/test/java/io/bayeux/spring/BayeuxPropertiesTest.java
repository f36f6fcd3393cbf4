package io.bayeux.spring;

import io.bayeux.auth.jwt.JwtConfig;
import io.bayeux.cluster.redis.RedisConfig;
import io.bayeux.oort.OortConfig;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.transport.NettyBayeuxServer;
import io.bayeux.transport.ServerSettings;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The properties' defaults (which the IDE metadata shows) are the builders' own. */
class BayeuxPropertiesTest {
    private static final String SECRET = "a properties test secret of 32 bytes or more";

    @Test
    void defaultPropertiesBuildTheServerBuilderDefaults() {
        ServerSettings expected = NettyBayeuxServer.builder().settings();
        ServerSettings actual = BayeuxServerFactory.builder(new BayeuxProperties()).settings();
        // The protocol settings have no equals: compared below, field by field.
        assertEquals(expected, new ServerSettings(actual.host(), actual.port(), actual.path(), actual.allowedOrigins(),
                actual.maxMessageSize(), actual.requestTimeout(), actual.idleTimeout(), actual.stallTime(), actual.tls(),
                actual.staticRoots(), actual.jsonp(), actual.websocket(), actual.handshakePerConnection(),
                actual.websocketCompression(), actual.gzipLevel(), actual.gzipMinBytes(), actual.browserCookieName(),
                actual.browserCookieSameSite(), actual.ioThreads(), actual.executorThreads(), expected.bayeux()));
        assertProtocolEquals(expected.bayeux(), actual.bayeux());
    }

    private static void assertProtocolEquals(BayeuxServerConfig expected, BayeuxServerConfig actual) {
        assertEquals(expected.toString(), actual.toString());
        assertEquals(expected.maxSessionsPerBrowser(), actual.maxSessionsPerBrowser());
        assertEquals(expected.broadcastToPublisher(), actual.broadcastToPublisher());
        assertEquals(expected.multiSessionInterval(), actual.multiSessionInterval());
    }

    @Test
    void defaultOortPropertiesAreTheOortConfigDefaults() {
        OortConfig expected = OortConfig.builder().build();
        OortConfig actual = OortClusterConfiguration.config(new BayeuxProperties().getOort());
        assertEquals(expected.failureTimeout(), actual.failureTimeout());
        assertEquals(expected.maxBackoff(), actual.maxBackoff());
        assertEquals(expected.clientWebSocket(), actual.clientWebSocket());
        assertEquals(List.of(), actual.peers());
    }

    @Test
    void defaultTokenPropertiesAreTheJwtConfigDefaults() {
        JwtConfig expected = JwtConfig.builder().hmacSecret(SECRET).build();
        BayeuxProperties.Token token = new BayeuxProperties().getToken();
        token.setSecret(SECRET);
        JwtConfig actual = TokenAuthenticationConfiguration.config(token);
        assertEquals(expected.clockSkew(), actual.clockSkew());
        assertEquals(expected.refreshLead(), actual.refreshLead());
        assertEquals(expected.refreshGrace(), actual.refreshGrace());
        assertEquals(expected.publicChannels(), actual.publicChannels());
        assertEquals(expected.issuer(), actual.issuer());
        assertEquals(expected.audience(), actual.audience());
        assertEquals(expected.jwksUrl(), actual.jwksUrl());
    }

    @Test
    void defaultRedisPropertiesAreTheRedisConfigDefaults() {
        RedisConfig expected = RedisConfig.builder().uri("redis://127.0.0.1:6379").build();
        RedisConfig actual = RedisClusterConfiguration.config(new BayeuxProperties().getRedis());
        assertEquals(expected.uri(), actual.uri());
        assertEquals(expected.presence(), actual.presence());
        assertEquals(expected.presenceTtl(), actual.presenceTtl());
        assertEquals(expected.prefix(), actual.prefix());
        assertEquals(expected.bufferSize(), actual.bufferSize());
        assertEquals(expected.maxReconnectDelay(), actual.maxReconnectDelay());
        assertEquals(expected.settleDelay(), actual.settleDelay());
    }
}
