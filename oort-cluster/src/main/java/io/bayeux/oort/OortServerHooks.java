package io.bayeux.oort;

import io.bayeux.api.Channel;
import io.bayeux.api.server.Authorizer;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.SecurityPolicy;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What an {@link Oort} installs on its server: the security policy that recognises Oort
 * handshakes (secret checked, self-links refused) and closes the cloud's channels to ordinary
 * clients, the extension that answers Oort handshakes with this node's id and URL, and the
 * listeners that tell the Oort of links arriving and leaving.
 */
final class OortServerHooks implements BayeuxServer.Extension, BayeuxServer.SessionListener, BayeuxServer.SubscriptionListener {
    private final Oort oort;
    private final Authorizer internalAuthorizer;
    private final ServerChannel.MessageListener serviceListener;
    /** Guarded by the Oort's lifecycle lock. */
    private Policy policy;
    private final List<ServerChannel> guarded = new ArrayList<>();

    OortServerHooks(Oort oort) {
        this.oort = oort;
        this.internalAuthorizer = (operation, channel, session, message) ->
                session != null && (session.isLocalSession() || oort.isOort(session))
                        ? Authorizer.Result.grant()
                        : Authorizer.Result.deny("oort_channel");
        this.serviceListener = (from, channel, message) -> {
            if (oort.isOort(from) && message.getDataAsMap() != null) {
                oort.announced(from, message.getDataAsMap());
            }
            return true;
        };
    }

    void install() {
        BayeuxServer bayeux = oort.getBayeuxServer();
        policy = new Policy(bayeux.getSecurityPolicy());
        bayeux.setSecurityPolicy(policy);
        bayeux.addExtension(this);
        bayeux.addListener(this);
        for (String name : Oort.protectedChannels()) {
            ServerChannel channel = bayeux.createChannelIfAbsent(name, Oort.persistent()).getReference();
            channel.addAuthorizer(internalAuthorizer);
            guarded.add(channel);
        }
        bayeux.getChannel(Oort.OORT_SERVICE_CHANNEL).addListener(serviceListener);
    }

    void uninstall() {
        BayeuxServer bayeux = oort.getBayeuxServer();
        bayeux.removeListener(this);
        bayeux.removeExtension(this);
        if (bayeux.getSecurityPolicy() == policy) {
            bayeux.setSecurityPolicy(policy.delegate);
        }
        for (ServerChannel channel : guarded) {
            channel.removeAuthorizer(internalAuthorizer);
            channel.removeListener(serviceListener);
        }
        guarded.clear();
    }

    // --- extension

    @Override
    public boolean rcvMeta(ServerSession from, ServerMessage.Mutable message) {
        if (!Channel.META_HANDSHAKE.equals(message.getChannel())) {
            return true;
        }
        Map<String, Object> ext = Oort.oortExt(message);
        if (ext == null || oort.getBayeuxServer().getSecurityPolicy() == policy) {
            return true;
        }
        // The application replaced the policy: the secret is still checked, here.
        return from != null && oort.acceptHandshake(from, ext);
    }

    @Override
    public boolean sendMeta(ServerSession to, ServerMessage.Mutable message) {
        if (Channel.META_HANDSHAKE.equals(message.getChannel()) && Oort.oortExt(message.getAssociated()) != null) {
            message.getExt(true).put(Oort.EXT_OORT_FIELD, oort.replyExt());
        }
        return true;
    }

    // --- listeners

    @Override
    public void sessionAdded(ServerSession session, ServerMessage message) {
        if (oort.isOort(session)) {
            oort.incomingAdded(session);
        }
    }

    @Override
    public void sessionRemoved(ServerSession session, ServerMessage message, boolean timeout) {
        if (oort.isOort(session)) {
            oort.incomingRemoved(session);
        }
    }

    @Override
    public void subscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
        oort.wildSubscribed(session, channel);
    }

    @Override
    public void unsubscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
    }

    /** The application's policy, with Oort handshakes decided by the Oort and Oort sessions allowed everything. */
    private final class Policy implements SecurityPolicy {
        private final SecurityPolicy delegate;

        Policy(SecurityPolicy delegate) {
            this.delegate = delegate;
        }

        @Override
        public boolean canHandshake(BayeuxServer server, ServerSession session, ServerMessage message) {
            Map<String, Object> ext = Oort.oortExt(message);
            if (ext == null) {
                return delegate.canHandshake(server, session, message);
            }
            return oort.acceptHandshake(session, ext);
        }

        @Override
        public boolean canCreate(BayeuxServer server, ServerSession session, String channelId, ServerMessage message) {
            if (oort.isOort(session)) {
                return true;
            }
            return !closed(session, channelId) && delegate.canCreate(server, session, channelId, message);
        }

        @Override
        public boolean canSubscribe(BayeuxServer server, ServerSession session, ServerChannel channel, ServerMessage message) {
            if (oort.isOort(session)) {
                return !channel.isMeta();
            }
            return !closed(session, channel.getId()) && delegate.canSubscribe(server, session, channel, message);
        }

        @Override
        public boolean canPublish(BayeuxServer server, ServerSession session, ServerChannel channel, ServerMessage message) {
            if (oort.isOort(session)) {
                return session.isHandshook() && !channel.isMeta();
            }
            return !closed(session, channel.getId()) && delegate.canPublish(server, session, channel, message);
        }

        /** The cloud's channels (wildcards included) are closed to remote clients that are not nodes. */
        private boolean closed(ServerSession session, String channel) {
            return (session == null || !session.isLocalSession()) && Oort.isInternal(channel);
        }
    }
}
