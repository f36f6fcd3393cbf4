package io.bayeux.cluster.redis;

import io.bayeux.client.BayeuxClient;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * What a Redis cluster test starts and stops: a server process of its own before each test
 * (unless {@link #withoutServer()}), and after it everything handed to {@link #closing}, last
 * first, each failure skipped so the rest still close, then the server.
 * {@code @RegisterExtension final RedisFixture fixture = RedisFixture.withRedis();}
 */
final class RedisFixture implements BeforeEachCallback, AfterEachCallback {
    private final Callable<RedisProcess> start;
    private final List<AutoCloseable> closing = new ArrayList<>();
    private RedisProcess redis;

    private RedisFixture(Callable<RedisProcess> start) {
        this.start = start;
    }

    /** The server named by {@value RedisProcess#SERVER_PROPERTY} (redis-server unless set). */
    static RedisFixture withRedis() {
        return new RedisFixture(RedisProcess::start);
    }

    /** No server: the test starts what it needs and hands it to {@link #closing}. */
    static RedisFixture withoutServer() {
        return new RedisFixture(null);
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        if (start != null) {
            redis = start.call();
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            try {
                closing.get(i).close();
            } catch (Exception x) {
                // keep closing the rest
            }
        }
        closing.clear();
        if (redis != null) {
            RedisProcess process = redis;
            redis = null;
            process.close();
        }
    }

    /** The server started for this test. */
    RedisProcess redis() {
        if (redis == null) {
            throw new IllegalStateException(start == null ? "This fixture starts no server" : "No server outside a test");
        }
        return redis;
    }

    /** Closes {@code resource} after the test, before what was handed over earlier. */
    <T extends AutoCloseable> T closing(T resource) {
        closing.add(resource);
        return resource;
    }

    /** A started Seti on {@code node} whose presence lives {@code presenceTtl} without a heartbeat; stopped after the test. */
    RedisSeti seti(RedisTesting.Node node, Duration presenceTtl) {
        RedisSeti seti = new RedisSeti(node.cluster(), presenceTtl);
        seti.start();
        closing.add(seti::stop);
        return seti;
    }

    /** A client connected to {@code url} over {@code transport}, disconnected after the test. */
    BayeuxClient connected(String url, String transport) throws InterruptedException {
        BayeuxClient client = RedisTesting.client(url, transport);
        closing.add(client::disconnect);
        return client;
    }
}
