package io.bayeux.cluster.redis;

import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a node's configuration holds, and what it refuses, without Redis. */
class RedisConfigTest {
    private static RedisConfig.Builder valid() {
        return RedisConfig.builder().uri("redis://127.0.0.1:6379");
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        RedisConfig config = valid().build();
        assertEquals("redis://127.0.0.1:6379", config.uri());
        assertEquals(List.of(), config.channels());
        assertTrue(config.presence());
        assertEquals(Duration.ofSeconds(10), config.presenceTtl());
        assertEquals("bayeux:", config.prefix());
        assertEquals(10_000, config.bufferSize());
        assertEquals(Duration.ofSeconds(5), config.maxReconnectDelay());
        assertEquals(Duration.ofSeconds(1), config.settleDelay());
    }

    @Test
    void aRedisUriIsOneServer() {
        RedisConfig config = valid().build();
        assertEquals(RedisConfig.Mode.STANDALONE, config.mode());
        assertEquals(1, config.seeds().size());
        assertEquals(6379, config.redisURI().getPort());
    }

    @Test
    void aSentinelUriNamesItsSentinelsAndItsMaster() {
        RedisConfig config = RedisConfig.builder().uri("redis-sentinel://127.0.0.1:26379,127.0.0.1:26380/mymaster").build();
        assertEquals(RedisConfig.Mode.SENTINEL, config.mode());
        assertEquals("mymaster", config.redisURI().getSentinelMasterId());
        assertEquals(List.of(26379, 26380), config.redisURI().getSentinels().stream().map(RedisURI::getPort).toList());
        // Lettuce's own syntax, with the master after '#', is taken as well.
        RedisConfig lettuce = RedisConfig.builder().uri("redis-sentinel://127.0.0.1:26379/0#other").build();
        assertEquals("other", lettuce.redisURI().getSentinelMasterId());
    }

    @Test
    void aClusterUriIsItsSeedsWithTheirPassword() {
        RedisConfig config = RedisConfig.builder().uri("redis-cluster://:secret@127.0.0.1:7000, 127.0.0.1:7001").build();
        assertEquals(RedisConfig.Mode.CLUSTER, config.mode());
        assertEquals(List.of(7000, 7001), config.seeds().stream().map(RedisURI::getPort).toList());
        for (RedisURI seed : config.seeds()) {
            assertEquals("secret", new String(seed.getCredentialsProvider().resolveCredentials().block().getPassword()));
            assertFalse(seed.isSsl());
        }
        assertTrue(RedisConfig.builder().uri("rediss-cluster://127.0.0.1:7000").build().redisURI().isSsl());
    }

    @Test
    void theConfigIsNotChangedByItsBuilderAfterwards() {
        RedisConfig.Builder builder = valid().channel("/chat/**");
        RedisConfig config = builder.build();
        builder.channel("/event/**").bufferSize(5);
        assertEquals(List.of("/chat/**"), config.channels());
        assertEquals(10_000, config.bufferSize());
        assertThrows(UnsupportedOperationException.class, () -> config.channels().add("/x"));
    }

    static Stream<Arguments> badSettings() {
        return Stream.of(
                bad("uri", "null", b -> b.uri(null)),
                bad("uri", "''", b -> b.uri("")),
                bad("uri", "'127.0.0.1:6379'", b -> b.uri("127.0.0.1:6379")),
                bad("uri", "'http://127.0.0.1:6379'", b -> b.uri("http://127.0.0.1:6379")),
                bad("uri", "'redis://127.0.0.1:99999'", b -> b.uri("redis://127.0.0.1:99999")),
                bad("uri", "'redis-sentinel://127.0.0.1:26379'", b -> b.uri("redis-sentinel://127.0.0.1:26379")),
                bad("uri", "'redis-sentinel://127.0.0.1:26379/0'", b -> b.uri("redis-sentinel://127.0.0.1:26379/0")),
                bad("uri", "'redis-cluster://'", b -> b.uri("redis-cluster://")),
                bad("uri", "'redis-cluster://127.0.0.1:7000,,127.0.0.1:7001'", b -> b.uri("redis-cluster://127.0.0.1:7000,,127.0.0.1:7001")),
                bad("uri", "'redis-cluster://127.0.0.1:7000/0'", b -> b.uri("redis-cluster://127.0.0.1:7000/0")),
                bad("channel", "'chat'", b -> b.channel("chat")),
                bad("channel", "null", b -> b.channel(null)),
                bad("prefix", "null", b -> b.prefix(null)),
                bad("bufferSize", "0", b -> b.bufferSize(0)),
                bad("bufferSize", "-1", b -> b.bufferSize(-1)),
                bad("presenceTtl", "PT0.299S", b -> b.presenceTtl(Duration.ofMillis(299))),
                bad("presenceTtl", "null", b -> b.presenceTtl(null)),
                bad("maxReconnectDelay", "PT0S", b -> b.maxReconnectDelay(Duration.ZERO)),
                bad("settleDelay", "PT-1S", b -> b.settleDelay(Duration.ofSeconds(-1))));
    }

    private static Arguments bad(String setting, String value, UnaryOperator<RedisConfig.Builder> change) {
        return Arguments.of(setting, value, change);
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("badSettings")
    void aBadSettingIsRefusedWithItsNameAndValue(String setting, String value, UnaryOperator<RedisConfig.Builder> change) {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> change.apply(valid()).build());
        assertTrue(x.getMessage().startsWith("RedisConfig " + setting + " = " + value), x.getMessage());
    }
}
