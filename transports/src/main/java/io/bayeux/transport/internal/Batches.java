package io.bayeux.transport.internal;

import io.bayeux.api.server.ServerMessage;

import java.util.List;

/** What the transports ask of a batch of messages before handing it to the core. */
public final class Batches {
    private Batches() {
    }

    /**
     * Whether a batch holds a message that is not a meta message: a publish, which waits while
     * the server is behind with deliveries (the publisher is slowed down, not the readers'
     * messages dropped).
     */
    public static boolean publishes(List<ServerMessage.Mutable> batch) {
        for (ServerMessage.Mutable message : batch) {
            String channel = message.getChannel();
            if (channel != null && !channel.startsWith("/meta/")) {
                return true;
            }
        }
        return false;
    }
}
