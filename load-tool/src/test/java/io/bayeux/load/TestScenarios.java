package io.bayeux.load;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.transport.NettyBayeuxServer;

import java.io.PrintStream;
import java.io.OutputStream;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/** Short scenarios and servers for the integration tests. */
final class TestScenarios {
    static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    private TestScenarios() {
    }

    /** {@code clients} clients in 20 rooms, 5 each, batches of 5 every 10 ms after 5 warm-up batches. */
    static Scenario scenario(URI url, String transport, int clients, int batches) {
        return new Scenario(List.of(url), transport, clients, 20, 5, 1, 2000, 5, Duration.ofMillis(10), batches, 5, 50,
                true, false, Duration.ofSeconds(1), false, null, null, Duration.ofSeconds(30), Duration.ofSeconds(60));
    }

    /** The benchmark server on a free port, with {@code extra} set up too; its stats service tells its write counts. */
    static NettyBayeuxServer server(Consumer<BayeuxServer> extra) {
        AtomicReference<NettyBayeuxServer> built = new AtomicReference<>();
        NettyBayeuxServer server = BenchmarkServer.builder(BenchmarkServer.Settings.defaults("127.0.0.1", 0), extra, () -> {
            NettyBayeuxServer current = built.get();
            return current == null ? null : current.writeCounts();
        }).build();
        built.set(server);
        return server.start();
    }

    /** Counts, on the server, the messages published to chat rooms and the deliveries they call for. */
    static final class ServerCount implements Consumer<BayeuxServer> {
        final AtomicLong published = new AtomicLong();
        final AtomicLong deliveries = new AtomicLong();

        @Override
        public void accept(BayeuxServer bayeux) {
            // Not an initializer: /chat/** exists already when the server gives the rooms a history.
            bayeux.createChannelIfAbsent("/chat/**").getReference().addListener((ServerChannel.MessageListener) (from, target, message) -> {
                published.incrementAndGet();
                deliveries.addAndGet(target.getSubscribers().size());
                return true;
            });
        }
    }
}
