package io.bayeux.oort;

import io.bayeux.oort.seti.Seti;
import io.bayeux.transport.NettyBayeuxServer;

import java.util.Objects;

/**
 * A running cluster node: a {@link NettyBayeuxServer}, its {@link Oort} and its {@link Seti},
 * started and stopped together.
 *
 * <pre>{@code
 * OortNode node = OortNode.start(NettyBayeuxServer.builder().port(8081),
 *         OortConfig.builder().secret("s").peer("http://127.0.0.1:8080/cometd").channel("/chat/**").build());
 * ...
 * node.stop();
 * }</pre>
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
     * Builds and starts the server, then its Oort (at the config's URL, or the server's own
     * when the config has none) and Seti, then dials the peers.
     */
    public static OortNode start(NettyBayeuxServer.Builder builder, OortConfig config) {
        Objects.requireNonNull(config, "config");
        NettyBayeuxServer server = builder.build().start();
        try {
            String url = config.url() != null ? config.url() : server.uri().toString();
            // Seti observes its channels before the first link, so that no snapshot is missed.
            Oort oort = config.newOort(server.bayeux(), url);
            oort.start();
            Seti seti = new Seti(oort);
            seti.start();
            config.observePeers(oort);
            return new OortNode(server, oort, seti);
        } catch (RuntimeException x) {
            server.stop();
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

    /** Stops Seti, the Oort (the other nodes see this one leave), then the server. */
    public void stop() {
        try {
            seti.stop();
            oort.stop();
        } finally {
            server.stop();
        }
    }

    @Override
    public void close() {
        stop();
    }

    @Override
    public String toString() {
        return "OortNode[" + oort + "]";
    }
}
