package io.bayeux.server;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The channels of one server by name, in one concurrent map looked up on every publish. */
final class ChannelRegistry {
    private final Map<String, ServerChannelImpl> channels = new ConcurrentHashMap<>();

    ServerChannelImpl get(String id) {
        return channels.get(id);
    }

    /** @return the channel already there, or null when {@code channel} was added */
    ServerChannelImpl putIfAbsent(ServerChannelImpl channel) {
        return channels.putIfAbsent(channel.getId(), channel);
    }

    /** Adds a channel, replacing any other of that name. */
    void put(ServerChannelImpl channel) {
        channels.put(channel.getId(), channel);
    }

    boolean remove(ServerChannelImpl channel) {
        return channels.remove(channel.getId(), channel);
    }

    Collection<ServerChannelImpl> all() {
        return channels.values();
    }
}
