package io.bayeux.examples;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ConfigurableServerChannel;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerSession;

import java.util.function.Predicate;

/**
 * Messages from other nodes were filtered (markup escaped, words masked) on their node already,
 * and escaping twice would show {@code &amp;lt;}: on a clustered demo node, the chat's channel
 * listeners let them through as they are.
 */
final class Republished {
    private Republished() {
    }

    /** Wraps the message listeners of {@code pattern} so that messages from {@code fromCluster} sessions skip them. */
    static void skipListeners(BayeuxServer bayeux, String pattern, Predicate<ServerSession> fromCluster) {
        ServerChannel channel = bayeux.getChannel(pattern);
        if (channel == null) {
            return;
        }
        for (ConfigurableServerChannel.ServerChannelListener listener : channel.getListeners()) {
            if (listener instanceof ServerChannel.MessageListener inner) {
                channel.removeListener(listener);
                channel.addListener((ServerChannel.MessageListener) (from, ch, message) ->
                        fromCluster.test(from) || inner.onMessage(from, ch, message));
            }
        }
    }
}
