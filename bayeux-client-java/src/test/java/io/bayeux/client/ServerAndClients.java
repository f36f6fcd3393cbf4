package io.bayeux.client;

import io.bayeux.client.transport.ClientTransport;
import io.bayeux.transport.NettyBayeuxServer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server and the clients of one client IT:
 * {@code @RegisterExtension final ServerAndClients fixture = new ServerAndClients();}.
 * A test starts its server as it needs it ({@link #start()}, {@link #start(UnaryOperator)}, on an
 * ephemeral loopback port unless the configuration names one); every client made through it (or
 * given to {@link #add}) is closed after the test, then the server is stopped, then the
 * event-loop groups it made ({@link #eventLoopGroup}) are shut down. Not thread-safe: a test's own thread uses it.
 */
final class ServerAndClients implements AfterEachCallback {
    private final List<BayeuxClient> clients = new CopyOnWriteArrayList<>();
    private final List<EventLoopGroup> groups = new CopyOnWriteArrayList<>();
    private NettyBayeuxServer server;

    /** A NIO event-loop group of {@code threads} threads for the test's clients; shut down after the test, which fails if it takes over 10 s. */
    EventLoopGroup eventLoopGroup(int threads) {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(threads, NioIoHandler.newFactory());
        groups.add(group);
        return group;
    }

    /** Starts a server with the default configuration. */
    NettyBayeuxServer start() {
        return start(UnaryOperator.identity());
    }

    /** Starts a server that {@code configure} sets up further (after {@code port(0)}). */
    NettyBayeuxServer start(UnaryOperator<NettyBayeuxServer.Builder> configure) {
        if (server != null) {
            throw new IllegalStateException("A server is running already: " + server);
        }
        server = configure.apply(NettyBayeuxServer.builder().port(0)).build().start();
        return server;
    }

    /** Stops the running server before the test ends, so that the test can start another. */
    void stopServer() {
        server().stop();
        server = null;
    }

    /** The running server. */
    NettyBayeuxServer server() {
        if (server == null) {
            throw new IllegalStateException("No server running");
        }
        return server;
    }

    URI uri() {
        return server().uri();
    }

    /** A client of the running server with the default transports (WebSocket, then long-polling). */
    BayeuxClient client(ClientConfig config) {
        return add(new BayeuxClient(uri().toString(), config));
    }

    /** A client of the running server that only uses the transport named {@code transport}. */
    BayeuxClient client(String transport, ClientConfig config) {
        return client(Clients.transport(transport, config), config);
    }

    /** A client of the running server that only uses {@code transport}. */
    BayeuxClient client(ClientTransport transport, ClientConfig config) {
        return add(Clients.client(uri(), config, transport));
    }

    /** Closes {@code client} after the test, with the others. */
    BayeuxClient add(BayeuxClient client) {
        clients.add(client);
        return client;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        clients.forEach(BayeuxClient::close);
        clients.clear();
        if (server != null) {
            server.stop();
            server = null;
        }
        for (EventLoopGroup group : groups) {
            assertTrue(group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS), "the group stopped");
        }
        groups.clear();
    }
}
