package io.bayeux.cluster.redis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The module's {@code valkey} execution runs the engine's Redis tests again with
 * {@code -Dbayeux.redis.server=valkey-server}; this checks, in both runs, that the server the
 * tests start is the one named (by its {@code INFO}): a Valkey run that silently started
 * redis-server, or the reverse, fails here.
 */
class ValkeyIT {
    @RegisterExtension
    final RedisFixture fixture = RedisFixture.withRedis();

    @Test
    void theServerStartedIsValkeyExactlyWhenValkeyIsNamed() throws Exception {
        RedisProcess server = fixture.redis();
        String valkey = server.info("valkey_version");
        String info = server.command("INFO server");
        assertEquals(server.program().contains("valkey"), valkey != null, () -> server.program() + " started: " + info);
        String version = valkey != null ? valkey : server.info("redis_version");
        assertTrue(Integer.parseInt(version.substring(0, version.indexOf('.'))) >= 7, () -> "version 7 or later needed: " + version);
    }
}
