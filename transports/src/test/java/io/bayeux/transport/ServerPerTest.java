package io.bayeux.transport;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.net.URI;

/**
 * A server with the default configuration on an ephemeral loopback port, started before each
 * test and stopped after it: {@code @RegisterExtension final ServerPerTest server = new ServerPerTest();}.
 */
final class ServerPerTest implements BeforeEachCallback, AfterEachCallback {
    private NettyBayeuxServer server;

    @Override
    public void beforeEach(ExtensionContext context) {
        server = NettyBayeuxServer.builder().port(0).build().start();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (server != null) {
            server.stop();
            server = null;
        }
    }

    /** Replaces this test's server by one that {@code configure} sets up further. */
    NettyBayeuxServer restart(java.util.function.UnaryOperator<NettyBayeuxServer.Builder> configure) {
        server().stop();
        server = null;
        server = configure.apply(NettyBayeuxServer.builder().port(0)).build().start();
        return server;
    }

    /** The running server; only during a test. */
    NettyBayeuxServer server() {
        if (server == null) {
            throw new IllegalStateException("No server outside a test");
        }
        return server;
    }

    int port() {
        return server().port();
    }

    URI uri() {
        return server().uri();
    }
}
