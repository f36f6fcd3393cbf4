package io.bayeux.server.internal;

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

    /** How many sessions last came over {@code transport} ({@code websocket}, {@code long-polling}, {@code local}...). */
    public int sessions(String transport) {
        int count = 0;
        for (ServerSessionImpl session : sessions.all()) {
            if (transport.equals(session.getTransportName())) {
                count++;
            }
        }
        return count;
    }

    /** How many sessions hold a {@code /meta/connect} now (long-polling waits, and idle WebSocket ones). */
    public int heldConnects() {
        int count = 0;
        for (ServerSessionImpl session : sessions.all()) {
            if (session.connectHold().isHeld()) {
                count++;
            }
        }
        return count;
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
