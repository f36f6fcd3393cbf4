package io.bayeux.load;

import io.bayeux.annotation.server.ServerAnnotationProcessor;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.ext.AcknowledgedMessagesExtension;
import io.bayeux.transport.NettyBayeuxServer;
import io.bayeux.server.QueueOverflow;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * This project's server set up for the chat benchmark: the default protocol settings (20 s
 * long-poll timeout, interval 0, max interval 10 s, broadcast to publishers), every channel
 * open (the default security policy), the acknowledged-delivery extension for clients that ask
 * for it, and the {@link StatsService} on {@code /service/load/stats}; optionally a history on
 * every room ({@code /chat/**}).
 */
public final class BenchmarkServer {
    /** The default per-session queue bound: large enough that a benchmark never meets it. */
    public static final int DEFAULT_MAX_QUEUE = 100_000;
    /** How long a room's message is kept when only the history's size is given. */
    public static final Duration DEFAULT_HISTORY_TTL = Duration.ofMinutes(5);
    /** The channels that get the history: every chat room. */
    public static final String ROOMS = "/chat/**";

    private BenchmarkServer() {
    }

    /**
     * How the benchmark server is set up: an immutable value; {@link #defaults} and the
     * {@code with...} methods make the others.
     *
     * @param host          the address to listen on
     * @param port          the port, 0 for a free one
     * @param maxQueue      messages queued per session before the oldest is dropped ({@value #DEFAULT_MAX_QUEUE})
     * @param ioThreads     Netty I/O threads, 0 for the server's default (one per core)
     * @param connectGather see {@link BayeuxServerConfig#connectGather()} (the server's default)
     * @param maxInterval   how long a session is kept without a connection (the server's default, 10 s)
     * @param history       the history of every room, or null for none (the default)
     */
    public record Settings(String host, int port, int maxQueue, int ioThreads, Duration connectGather, Duration maxInterval,
                           HistoryPolicy history) {
        public Settings {
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(connectGather, "connectGather");
            Objects.requireNonNull(maxInterval, "maxInterval");
        }

        /** The defaults on {@code host:port}. */
        public static Settings defaults(String host, int port) {
            return new Settings(host, port, DEFAULT_MAX_QUEUE, 0, BayeuxServerConfig.DEFAULT_CONNECT_GATHER,
                    BayeuxServerConfig.DEFAULT_MAX_INTERVAL, null);
        }

        public Settings withMaxQueue(int maxQueue) {
            return new Settings(host, port, maxQueue, ioThreads, connectGather, maxInterval, history);
        }

        public Settings withIoThreads(int ioThreads) {
            return new Settings(host, port, maxQueue, ioThreads, connectGather, maxInterval, history);
        }

        public Settings withConnectGather(Duration connectGather) {
            return new Settings(host, port, maxQueue, ioThreads, connectGather, maxInterval, history);
        }

        public Settings withMaxInterval(Duration maxInterval) {
            return new Settings(host, port, maxQueue, ioThreads, connectGather, maxInterval, history);
        }

        /** Every room keeps {@code history}; null for none. */
        public Settings withHistory(HistoryPolicy history) {
            return new Settings(host, port, maxQueue, ioThreads, connectGather, maxInterval, history);
        }
    }

    /** A builder with the benchmark's configuration; {@code extra} sets up more (a test's listeners). */
    public static NettyBayeuxServer.Builder builder(String host, int port, int maxQueue, int ioThreads, Consumer<BayeuxServer> extra) {
        return builder(Settings.defaults(host, port).withMaxQueue(maxQueue).withIoThreads(ioThreads), extra);
    }

    /** A builder set up as {@code settings} say; {@code extra} sets up more (a test's listeners), after the history. */
    public static NettyBayeuxServer.Builder builder(Settings settings, Consumer<BayeuxServer> extra) {
        return builder(settings, extra, () -> null);
    }

    /**
     * The same, its stats service also telling the server's write counts as {@code writes} gives
     * them (null while they are not known): see {@link NettyBayeuxServer#writeCounts()}.
     */
    public static NettyBayeuxServer.Builder builder(Settings settings, Consumer<BayeuxServer> extra,
                                                    Supplier<NettyBayeuxServer.WriteCounts> writes) {
        NettyBayeuxServer.Builder builder = NettyBayeuxServer.builder()
                .host(settings.host())
                .port(settings.port())
                .ioThreads(settings.ioThreads())
                .maxQueue(settings.maxQueue(), QueueOverflow.DROP_OLDEST)
                .bayeuxConfig(BayeuxServerConfig.builder().maxQueue(settings.maxQueue()).connectGather(settings.connectGather())
                        .maxInterval(settings.maxInterval()).build())
                .service(bayeux -> bayeux.addExtension(new AcknowledgedMessagesExtension()))
                .service(bayeux -> ServerAnnotationProcessor.services(new StatsService(bayeux, writes)).accept(bayeux));
        if (settings.history() != null) {
            builder.service(history(settings.history()));
        }
        if (extra != null) {
            builder.service(extra);
        }
        return builder;
    }

    /** Gives every room {@code policy}; works whether or not {@code /chat/**} exists already (an initializer would not run on it then). */
    public static Consumer<BayeuxServer> history(HistoryPolicy policy) {
        Objects.requireNonNull(policy, "policy");
        return bayeux -> bayeux.createChannelIfAbsent(ROOMS).getReference().setHistory(policy);
    }
}
