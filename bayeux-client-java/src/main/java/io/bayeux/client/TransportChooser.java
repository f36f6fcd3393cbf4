package io.bayeux.client;

import io.bayeux.client.transport.ClientTransport;

import java.util.ArrayList;
import java.util.List;

/**
 * Which of a client's transports it uses: the first one not excluded, the one a handshake
 * reply negotiates, and the next one when the current one turns out
 * {@linkplain ClientTransport.UnusableException unusable}. A transport excluded stays so
 * until the next session begins ({@link #restart}); the last one is never excluded.
 *
 * <p>Not thread-safe: the lock of the client that owns it guards it.
 */
final class TransportChooser {
    private final List<ClientTransport> transports;
    /** The transports that were unusable since the last handshake began. */
    private final List<ClientTransport> excluded = new ArrayList<>();
    /** The transport in use, or to be used next; null before the first handshake. */
    private ClientTransport current;

    /** @param transports in order of preference, at least one */
    TransportChooser(List<ClientTransport> transports) {
        if (transports.isEmpty()) {
            throw new IllegalArgumentException("At least one transport is needed");
        }
        this.transports = List.copyOf(transports);
    }

    List<ClientTransport> all() {
        return transports;
    }

    /** The names of the transports, in order of preference. */
    List<String> names() {
        return transports.stream().map(ClientTransport::name).toList();
    }

    ClientTransport current() {
        return current;
    }

    /** A new session: every transport gets another chance. Returns the first, now current. */
    ClientTransport restart() {
        excluded.clear();
        current = first();
        return current;
    }

    private ClientTransport first() {
        for (ClientTransport t : transports) {
            if (!excluded.contains(t)) {
                return t;
            }
        }
        return transports.get(transports.size() - 1);
    }

    /**
     * Makes current the first transport, not excluded, among {@code serverTypes} (the server's
     * supported connection types from its handshake reply); keeps the current one when none fits.
     *
     * @return the transport now current
     */
    ClientTransport negotiate(Object serverTypes) {
        if (serverTypes instanceof List<?> types) {
            for (ClientTransport t : transports) {
                if (!excluded.contains(t) && types.contains(t.name())) {
                    current = t;
                    break;
                }
            }
        }
        return current;
    }

    /**
     * Excludes {@code source}, found unusable, and moves to the next transport; does nothing
     * when {@code source} is not the current one, was excluded already, or is the last left.
     *
     * @return whether it fell back
     */
    boolean fallBackFrom(ClientTransport source) {
        if (source != current || excluded.contains(source) || excluded.size() >= transports.size() - 1) {
            return false;
        }
        excluded.add(source);
        current = first();
        return true;
    }
}
