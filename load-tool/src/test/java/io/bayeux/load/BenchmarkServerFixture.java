package io.bayeux.load;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.function.Consumer;

/**
 * The benchmark server of one test, started by the test ({@link #start}) and stopped after it:
 * {@code @RegisterExtension final BenchmarkServerFixture servers = new BenchmarkServerFixture();}.
 */
final class BenchmarkServerFixture implements AfterEachCallback {
    private NettyBayeuxServer server;

    /** The benchmark server on a free loopback port, with {@code extra} set up too ({@link TestScenarios#server}). */
    NettyBayeuxServer start(Consumer<BayeuxServer> extra) {
        if (server != null) {
            throw new IllegalStateException("A server is running already: " + server);
        }
        server = TestScenarios.server(extra);
        return server;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (server != null) {
            server.stop();
            server = null;
        }
    }
}
