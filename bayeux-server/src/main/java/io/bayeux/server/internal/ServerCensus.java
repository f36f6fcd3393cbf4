package io.bayeux.server.internal;

import java.util.HashMap;
import java.util.Map;

/**
 * Counts of a server's state now, for metrics: its sessions by transport, its held connects,
 * channels and subscriptions. Each count walks the sessions or channels when asked (a scrape a
 * second, not the delivery path), so a server that is never asked pays nothing.
 *
 * <p>Thread-safe: it reads the server's concurrent registries; a count is a moment's, not a
 * snapshot of them all.
 */
public final class ServerCensus {
    private final SessionRegistry sessions;
    private final ChannelRegistry channels;

    ServerCensus(SessionRegistry sessions, ChannelRegistry channels) {
        this.sessions = sessions;
        this.channels = channels;
    }

    /**
     * The sessions by the transport each last came over ({@code websocket}, {@code long-polling},
     * {@code local}...) and those that hold a {@code /meta/connect} now (long-polling waits, and
     * idle WebSocket ones), counted in one walk of the sessions.
     */
    public SessionCounts sessionCounts() {
        Map<String, int[]> byTransport = new HashMap<>();
        int held = 0;
        for (ServerSessionImpl session : sessions.all()) {
            String transport = session.getTransportName();
            if (transport != null) {
                byTransport.computeIfAbsent(transport, t -> new int[1])[0]++;
            }
            if (session.connectHold().isHeld()) {
                held++;
            }
        }
        Map<String, Integer> counts = new HashMap<>();
        byTransport.forEach((transport, count) -> counts.put(transport, count[0]));
        return new SessionCounts(Map.copyOf(counts), held);
    }

    /**
     * A moment's counts of the sessions: by transport, and those holding a connect. Immutable.
     *
     * @param byTransport  the sessions of each transport that has some
     * @param heldConnects the sessions that hold a {@code /meta/connect}
     */
    public record SessionCounts(Map<String, Integer> byTransport, int heldConnects) {
        /** The sessions that last came over {@code transport}: 0 when none did. */
        public int sessions(String transport) {
            return byTransport.getOrDefault(transport, 0);
        }
    }

    /** How many channels exist now, meta channels included. */
    public int channels() {
        return channels.all().size();
    }

    /** The subscriptions of every channel, summed. */
    public long subscriptions() {
        long count = 0;
        for (ServerChannelImpl channel : channels.all()) {
            count += channel.subscribers().size();
        }
        return count;
    }

    @Override
    public String toString() {
        return "ServerCensus[sessions=" + sessions.size() + ", channels=" + channels() + "]";
    }
}
