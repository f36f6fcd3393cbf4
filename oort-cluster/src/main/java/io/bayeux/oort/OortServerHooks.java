package io.bayeux.oort;

import io.bayeux.api.Channel;
import io.bayeux.api.ChannelId;
import io.bayeux.api.server.Authorizer;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ConfigurableServerChannel;
import io.bayeux.api.server.SecurityPolicy;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What an {@link Oort} installs on its server: the security policy that decides Oort
 * handshakes (secret checked, self-links refused; see {@link #acceptHandshake}) and closes the
 * cloud's channels to ordinary clients, the extension that answers Oort handshakes with this
 * node's id and URL, and the listeners that tell the Oort of links arriving and leaving.
 * Installed by {@link Oort#start()}, removed by {@link Oort#stop()}; its callbacks run on the
 * server's threads and only read the Oort's volatile state.
 */
final class OortServerHooks implements BayeuxServer.Extension, BayeuxServer.SessionListener, BayeuxServer.SubscriptionListener {
    private static final Logger LOG = LoggerFactory.getLogger(OortServerHooks.class);
    /** Marks an ordinary session whose wildcard subscription covers the cloud's channels, once filtered. */
    private static final String FILTERED_ATTRIBUTE = Oort.class.getName() + ".filtered";
    /** The cloud's channels, closed to ordinary clients. */
    private static final List<String> PROTECTED = List.of("/oort/**", "/seti/**", Oort.OORT_SERVICE_CHANNEL, Oort.OORT_SERVICE_CHANNEL + "/**");

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
        for (String name : PROTECTED) {
            ServerChannel channel = bayeux.createChannelIfAbsent(name, ConfigurableServerChannel.Initializer.persistent()).getReference();
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
        return from != null && acceptHandshake(from, ext);
    }

    @Override
    public boolean sendMeta(ServerSession to, ServerMessage.Mutable message) {
        if (Channel.META_HANDSHAKE.equals(message.getChannel()) && Oort.oortExt(message.getAssociated()) != null) {
            message.getExt(true).put(Oort.EXT_OORT_FIELD, replyExt());
        }
        return true;
    }

    /**
     * Decides an Oort handshake (one with the Oort ext): refused when the Oort is stopped, when
     * it is this node's own id, or when the secret is wrong. An accepted session is marked as
     * Oort and gets the heartbeat: held for half the failure timeout, expired after it.
     */
    boolean acceptHandshake(ServerSession session, Map<String, Object> ext) {
        Object remoteId = ext.get(Oort.EXT_OORT_ID_FIELD);
        Object remoteURL = ext.get(Oort.EXT_OORT_URL_FIELD);
        Object remoteSecret = ext.get(Oort.EXT_OORT_SECRET_FIELD);
        String hashedSecret = oort.hashedSecret();
        if (!oort.isRunning() || hashedSecret == null) {
            return false;
        }
        if (oort.getId().equals(remoteId)) {
            LOG.debug("Refusing a link from this node to itself ({})", remoteURL);
            return false;
        }
        if (!(remoteURL instanceof String rurl) || !(remoteId instanceof String rid)) {
            LOG.warn("Refusing an Oort handshake without oortURL and oortId: {}", ext);
            return false;
        }
        if (!(remoteSecret instanceof String s) || !MessageDigest.isEqual(s.getBytes(StandardCharsets.UTF_8), hashedSecret.getBytes(StandardCharsets.UTF_8))) {
            LOG.warn("Refusing an Oort handshake from {} ({}): wrong secret", rurl, rid);
            return false;
        }
        session.setAttribute(Oort.REMOTE_URL_ATTRIBUTE, rurl);
        session.setAttribute(Oort.REMOTE_ID_ATTRIBUTE, rid);
        if (ext.get(Oort.EXT_COMET_URL_FIELD) instanceof String dialed) {
            session.setAttribute(Oort.DIALED_URL_ATTRIBUTE, dialed);
        }
        if (ext.get(Oort.EXT_OORT_ALIAS_URL_FIELD) instanceof String alias) {
            session.setAttribute(Oort.ALIAS_URL_ATTRIBUTE, alias);
        }
        long failure = oort.getFailureTimeout().toMillis();
        session.setTimeout(failure / 2);
        session.setMaxInterval(failure);
        session.setMaxQueue(oort.linkMaxQueue());
        return true;
    }

    /** The ext of the reply to an Oort handshake: this node's URL and id. */
    private Map<String, Object> replyExt() {
        Map<String, Object> ext = new LinkedHashMap<>();
        ext.put(Oort.EXT_OORT_URL_FIELD, oort.getURL());
        ext.put(Oort.EXT_OORT_ID_FIELD, oort.getId());
        return ext;
    }

    /** An ordinary client subscribed to a wildcard that covers the cloud's channels: it never gets their messages. */
    private void wildSubscribed(ServerSession session, ServerChannel channel) {
        if (session.isLocalSession() || oort.isOort(session) || !channel.getChannelId().isWild()) {
            return;
        }
        String pattern = channel.getId();
        boolean covers = ChannelId.matches(pattern, Oort.OORT_CLOUD_CHANNEL) || ChannelId.matches(pattern, "/seti/all")
                || ChannelId.matches(pattern, "/seti/x/y");
        if (covers && session.getAttribute(FILTERED_ATTRIBUTE) == null) {
            session.setAttribute(FILTERED_ATTRIBUTE, Boolean.TRUE);
            session.addListener((ServerSession.MessageListener) (to, sender, message) -> {
                String name = message.getChannel();
                return name == null || !Oort.isInternal(name);
            });
        }
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
        wildSubscribed(session, channel);
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
            return acceptHandshake(session, ext);
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
