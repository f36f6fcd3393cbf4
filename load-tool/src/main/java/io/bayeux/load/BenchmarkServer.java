package io.bayeux.load;

import io.bayeux.annotation.server.ServerAnnotationProcessor;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.ext.AcknowledgedMessagesExtension;
import io.bayeux.transport.NettyBayeuxServer;
import io.bayeux.transport.QueueOverflow;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * This project's server set up for the chat benchmark: the default protocol settings (20 s
 * long-poll timeout, interval 0, max interval 10 s, broadcast to publishers), every channel
 * open (the default security policy), the acknowledged-delivery extension for clients that ask
 * for it, and the {@link StatsService} on {@code /service/load/stats}.
 */
public final class BenchmarkServer {
    /** The default per-session queue bound: large enough that a benchmark never meets it. */
    public static final int DEFAULT_MAX_QUEUE = 100_000;

    private BenchmarkServer() {
    }

    /** A builder with the benchmark's configuration; {@code extra} sets up more (a test's listeners). */
    public static NettyBayeuxServer.Builder builder(String host, int port, int maxQueue, int ioThreads, Consumer<io.bayeux.api.server.BayeuxServer> extra) {
        return builder(host, port, maxQueue, ioThreads, BayeuxServerConfig.DEFAULT_CONNECT_GATHER, extra);
    }

    /** As above, with {@code connectGather} (see {@link BayeuxServerConfig#connectGather()}). */
    public static NettyBayeuxServer.Builder builder(String host, int port, int maxQueue, int ioThreads, Duration connectGather,
                                                    Consumer<io.bayeux.api.server.BayeuxServer> extra) {
        NettyBayeuxServer.Builder builder = NettyBayeuxServer.builder()
                .host(host)
                .port(port)
                .ioThreads(ioThreads)
                .maxQueue(maxQueue, QueueOverflow.DROP_OLDEST)
                .bayeuxConfig(BayeuxServerConfig.builder().maxQueue(maxQueue).connectGather(connectGather).build())
                .service(bayeux -> bayeux.addExtension(new AcknowledgedMessagesExtension()))
                .service(bayeux -> ServerAnnotationProcessor.services(new StatsService(bayeux)).accept(bayeux));
        if (extra != null) {
            builder.service(extra);
        }
        return builder;
    }
}
