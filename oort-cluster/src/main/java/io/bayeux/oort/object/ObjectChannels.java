package io.bayeux.oort.object;

import io.bayeux.api.Promise;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ConfigurableServerChannel;
import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.oort.CometListener;
import io.bayeux.oort.Oort;
import io.bayeux.oort.OortComet;
import org.slf4j.Logger;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How an {@link OortObject} talks with its copies on the other nodes: it broadcasts changes on
 * {@code /oort/objects/<name>}, pushes and pulls whole parts on {@code /service/oort/objects/<name>}
 * over the link to one node, and hears both, the nodes subscribing to its broadcasts, and the
 * nodes joining and leaving; what it hears it hands to its object. Opened by the object's start,
 * closed by its stop; thread-safe.
 */
final class ObjectChannels {
    private final OortObject<?> object;
    private final Oort oort;
    private final Logger logger;
    private final String broadcastChannel;
    private final String serviceChannel;
    private final ServerChannel.MessageListener broadcastListener = (from, channel, message) -> received(from, message, false);
    /** Only another node's link may push or pull. */
    private final ServerChannel.MessageListener serviceListener = (from, channel, message) -> received(from, message, true);
    /**
     * A node subscribing to the broadcasts is sent this node's part then, on the broadcast channel
     * (as CometD does): nothing broadcast before it subscribed is missed.
     */
    private final ServerChannel.SubscriptionListener subscriptionListener = new ServerChannel.SubscriptionListener() {
        @Override
        public void subscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
            LocalSession local = sender;
            if (local == null || session.isLocalSession() || !object.getOort().isOort(session)) {
                return;
            }
            Map<String, Object> info = object.localInfo();
            if (info != null) {
                session.deliver(local, broadcastChannel, info, Promise.noop());
            }
        }

        @Override
        public void unsubscribed(ServerSession session, ServerChannel channel, ServerMessage message) {
        }
    };
    private final CometListener cometListener = new CometListener() {
        @Override
        public void cometJoined(Event event) {
            push(event.cometURL(), null);
        }

        @Override
        public void cometLeft(Event event) {
            object.removePart(event.cometURL(), "left");
        }
    };
    /** The session that publishes this node's changes; null while closed. */
    private volatile LocalSession sender;

    ObjectChannels(OortObject<?> object, Logger logger) {
        this.object = object;
        this.oort = object.getOort();
        this.logger = logger;
        this.broadcastChannel = object.getChannelName();
        this.serviceChannel = object.getServiceChannelName();
    }

    /** Listens on both channels, and to the nodes joining and leaving; observes the broadcasts on every node. */
    void open() {
        LocalSession session = oort.getBayeuxServer().newLocalSession("oort-object-" + object.getName());
        session.handshake();
        sender = session;
        BayeuxServer bayeux = oort.getBayeuxServer();
        ServerChannel broadcast = bayeux.createChannelIfAbsent(broadcastChannel, ConfigurableServerChannel.Initializer.persistent()).getReference();
        broadcast.addListener(broadcastListener);
        broadcast.addListener(subscriptionListener);
        bayeux.createChannelIfAbsent(serviceChannel, ConfigurableServerChannel.Initializer.persistent()).getReference().addListener(serviceListener);
        oort.addCometListener(cometListener);
        oort.observeChannel(broadcastChannel);
    }

    /** Undoes {@link #open()}. */
    void close() {
        oort.deobserveChannel(broadcastChannel);
        oort.removeCometListener(cometListener);
        BayeuxServer bayeux = oort.getBayeuxServer();
        ServerChannel channel = bayeux.getChannel(broadcastChannel);
        if (channel != null) {
            channel.removeListener(broadcastListener);
            channel.removeListener(subscriptionListener);
        }
        channel = bayeux.getChannel(serviceChannel);
        if (channel != null) {
            channel.removeListener(serviceListener);
        }
        LocalSession session = sender;
        sender = null;
        if (session != null) {
            session.disconnect();
        }
    }

    /** Whether this node's link to the node at {@code oortURL} is connected; false when there is none or the Oort stopped. */
    boolean linked(String oortURL) {
        try {
            OortComet comet = oort.getComet(oortURL);
            return comet != null && comet.isConnected();
        } catch (RuntimeException x) {
            return false;
        }
    }

    /** Broadcasts a change of this node's part to every node. */
    void broadcast(Map<String, Object> message) {
        LocalSession session = sender;
        if (session != null) {
            session.getChannel(broadcastChannel).publish(message);
        }
    }

    /** Pushes this node's whole part to the node at {@code oortURL}; {@code peer} marks a reply. */
    void push(String oortURL, String peer) {
        Map<String, Object> message = object.localInfo();
        if (message == null) {
            return;
        }
        message.put(Info.ACTION_FIELD, OortObject.ACTION_PUSH);
        if (peer != null) {
            message.put(Info.PEER_FIELD, peer);
        }
        send(oortURL, message);
    }

    /** Asks the node at {@code oortURL} to push its whole part. */
    void pull(String oortURL) {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put(Info.OORT_URL_FIELD, oort.getURL());
        message.put(Info.NAME_FIELD, object.getName());
        message.put(Info.ACTION_FIELD, OortObject.ACTION_PULL);
        send(oortURL, message);
    }

    private void send(String oortURL, Map<String, Object> message) {
        try {
            OortComet comet = oort.isRunning() ? oort.getComet(oortURL) : null;
            if (comet == null) {
                logger.debug("No link to {}: {} not sent", oortURL, message);
                return;
            }
            comet.getClient().getChannel(serviceChannel).publish(message);
        } catch (IllegalStateException x) {
            logger.debug("Cannot send to {}", oortURL, x);
        }
    }

    private boolean received(ServerSession from, ServerMessage message, boolean fromNodesOnly) {
        Map<String, Object> data = message.getDataAsMap();
        if (data != null && (!fromNodesOnly || oort.isOort(from))) {
            object.received(data);
        }
        return true;
    }
}
