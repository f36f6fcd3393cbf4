package io.bayeux.load;

import io.bayeux.client.BayeuxClient;
import io.bayeux.client.transport.ClientTransport;

import java.time.Duration;

/**
 * {@code --cut-every} with {@code --cut-for}: each client's transport wrapped in a
 * {@link CuttableTransport}; which client to cut next (one not cut already), and which may
 * publish (one connected and not cut: a client that is away could only keep its messages for
 * later, and they would be timed as late).
 *
 * <p>Thread-safety: {@link #wrap} on the caller's thread before publishing starts; the rest from
 * the pacer and the sampler, reading the transports' volatile cut state.
 */
final class NetworkCuts {
    private final CuttableTransport[] transports;
    private final BayeuxClient[] clients;
    private final Duration length;

    NetworkCuts(BayeuxClient[] clients, Duration length) {
        this.transports = new CuttableTransport[clients.length];
        this.clients = clients;
        this.length = length;
    }

    /** Client {@code c}'s transport, made cuttable. */
    ClientTransport wrap(int c, ClientTransport transport) {
        transports[c] = new CuttableTransport(transport);
        return transports[c];
    }

    /** Cuts {@code victim}, or the next client not cut already; false when none could be cut. */
    boolean cut(int victim) {
        for (int i = 0; i < transports.length; i++) {
            CuttableTransport candidate = transports[(victim + i) % transports.length];
            if (candidate != null && !candidate.isCut()) {
                candidate.cut(length);
                return true;
            }
        }
        return false;
    }

    /** {@code client}, or the next client after it that is connected and not cut; {@code client} if none is. */
    int publisher(int client) {
        for (int i = 0; i < transports.length; i++) {
            int candidate = (client + i) % transports.length;
            if (transports[candidate] != null && !transports[candidate].isCut() && clients[candidate] != null && clients[candidate].isConnected()) {
                return candidate;
            }
        }
        return client;
    }
}
