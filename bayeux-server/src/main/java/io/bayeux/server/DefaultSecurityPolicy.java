package io.bayeux.server;

import io.bayeux.api.ChannelId;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.SecurityPolicy;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;

/**
 * The policy a server starts with: anyone may handshake; remote clients may create, subscribe
 * and publish on any channel but {@code /meta/**}; local sessions may do everything. Extend
 * it to add rules of your own.
 */
public class DefaultSecurityPolicy implements SecurityPolicy {
    @Override
    public boolean canCreate(BayeuxServer server, ServerSession session, String channelId, ServerMessage message) {
        return session != null && session.isLocalSession() || !ChannelId.of(channelId).isMeta();
    }

    @Override
    public boolean canSubscribe(BayeuxServer server, ServerSession session, ServerChannel channel, ServerMessage message) {
        return session != null && session.isLocalSession() || !channel.isMeta();
    }

    @Override
    public boolean canPublish(BayeuxServer server, ServerSession session, ServerChannel channel, ServerMessage message) {
        return session != null && session.isHandshook() && !channel.isMeta();
    }
}
