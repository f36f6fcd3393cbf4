package io.bayeux.oort;

import io.bayeux.oort.seti.Seti;
import io.bayeux.transport.NettyBayeuxServer;

import java.util.Objects;

/**
 * A running cluster node: a {@link NettyBayeuxServer}, its {@link Oort} and its {@link Seti},
 * started together by {@link #start} and closed together, in the reverse order.
 *
 * <pre>{@code
 * try (OortNode node = OortNode.start(NettyBayeuxServer.builder().port(8081),
 *         OortConfig.builder().secret("s").peer("http://127.0.0.1:8080/cometd").channel("/chat/**").build())) {
 *     ...
 * }
 * }</pre>
 *
 * <p>Thread-safe; {@link #close()} may be called more than once.
 */
public final class OortNode implements AutoCloseable {
    private final NettyBayeuxServer server;
    private final Oort oort;
    private final Seti seti;

    private OortNode(NettyBayeuxServer server, Oort oort, Seti seti) {
        this.server = server;
        this.oort = oort;
        this.seti = seti;
    }

    /**
     * Checks the config ({@link OortConfig#validate()}, before any port is bound), builds and
     * starts the server, then its Oort (at the config's URL, or the server's own when the config
     * has none) and Seti, then dials the peers. When a step fails, what was started is closed.
     *
     * @throws IllegalArgumentException when a setting of {@code config} is bad; the message names it
     */
    public static OortNode start(NettyBayeuxServer.Builder builder, OortConfig config) {
        Objects.requireNonNull(builder, "builder");
        Objects.requireNonNull(config, "config").validate();
        NettyBayeuxServer server = builder.build().start();
        Oort oort = null;
        Seti seti = null;
        try {
            String url = config.url() != null ? config.url() : server.uri().toString();
            oort = config.newOort(server.bayeux(), url);
            oort.start();
            // Seti observes its channels before the first link, so that no snapshot is missed.
            seti = new Seti(oort);
            seti.start();
            config.observePeers(oort);
            return new OortNode(server, oort, seti);
        } catch (RuntimeException | Error x) {
            stopAll(seti, oort, server, x);
            throw x;
        }
    }

    public NettyBayeuxServer server() {
        return server;
    }

    public Oort oort() {
        return oort;
    }

    public Seti seti() {
        return seti;
    }

    /**
     * Stops Seti (the other nodes drop this node's users), the Oort (they see this node leave),
     * then the server; each step runs even when one before it failed. Safe to call twice.
     */
    public void stop() {
        RuntimeException failure = stopAll(seti, oort, server, null);
        if (failure != null) {
            throw failure;
        }
    }

    /** As {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    /**
     * Stops each of those started (the null ones were not), in this order; a failure is added to
     * {@code cause} when there is one, else the first is returned.
     */
    private static RuntimeException stopAll(Seti seti, Oort oort, NettyBayeuxServer server, Throwable cause) {
        RuntimeException first = null;
        Runnable[] steps = {
                seti == null ? null : seti::stop,
                oort == null ? null : oort::stop,
                server::stop,
        };
        for (Runnable step : steps) {
            if (step == null) {
                continue;
            }
            try {
                step.run();
            } catch (RuntimeException x) {
                if (cause != null) {
                    cause.addSuppressed(x);
                } else if (first == null) {
                    first = x;
                } else {
                    first.addSuppressed(x);
                }
            }
        }
        return first;
    }

    @Override
    public String toString() {
        return "OortNode[" + oort + "]";
    }
}
