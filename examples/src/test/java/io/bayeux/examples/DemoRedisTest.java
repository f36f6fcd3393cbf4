package io.bayeux.examples;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the demo's {@code --engine} takes: one Redis, the Sentinels of a master, or a Redis Cluster's seeds. */
class DemoRedisTest {
    @ParameterizedTest
    @ValueSource(strings = {"redis://127.0.0.1:6379", "rediss://127.0.0.1:6379", "redis-sentinel://127.0.0.1:26379,127.0.0.1:26380/mymaster",
            "redis-cluster://127.0.0.1:7000,127.0.0.1:7001", "rediss-cluster://127.0.0.1:7000"})
    void theEngineTakesEachKindOfRedisUri(String uri) {
        DemoRedis engine = new DemoRedis();
        assertFalse(engine.enabled());
        engine.set("--engine", uri);
        assertTrue(engine.enabled());
        assertEquals(uri, engine.uri());
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://127.0.0.1:6379", "127.0.0.1:6379", "cluster://127.0.0.1:7000"})
    void theEngineRefusesAnythingElseNamingIt(String uri) {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> new DemoRedis().set("--engine", uri));
        assertTrue(x.getMessage().endsWith("not " + uri), x.getMessage());
    }
}
