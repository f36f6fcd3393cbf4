package io.bayeux.oort;

import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSessionChannel;
import io.bayeux.api.server.ServerSession;
import io.bayeux.client.BayeuxClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * The links of an {@link Oort} with the other nodes, and how each moves: dialed, handshaken
 * both ways, joined (both join batches exchanged, and this node's announcement acknowledged on
 * its comet's current session), down (a direction broke: the node leaves, and its session here
 * goes, so that it notices too), re-linked. The other node is known by its {@code oortId}: a
 * new one is a restart (left, then joined); the same one on a new comet session is the same
 * node, a departure only when it dropped a session it had acknowledged. Confined to the Oort's
 * own thread; only {@link #received} runs on a link's I/O thread.
 */
final class OortLinks {
    private static final Logger LOG = LoggerFactory.getLogger(OortLinks.class);

    private final Oort oort;
    private final Map<String, Link> links = new LinkedHashMap<>();
    /** Other URLs of linked nodes, to their own URL. */
    private final Map<String, String> aliases = new HashMap<>();
    /** The URLs that turned out to be this node. */
    private final Set<String> selfURLs = new LinkedHashSet<>();

    OortLinks(Oort oort) {
        this.oort = oort;
        selfURLs.add(oort.getURL());
    }

    /** The link to {@code cometURL}, made when there is none and it is not this node; null when it is. */
    OortComet observe(String cometURL) {
        Link link = linkFor(cometURL);
        if (link == null && !selfURLs.contains(cometURL)) {
            link = newLink(cometURL);
        }
        return link == null ? null : link.comet;
    }

    /** Closes and forgets the link to {@code cometURL}; returns it, or null. */
    OortComet deobserve(String cometURL) {
        Link link = linkFor(cometURL);
        if (link == null) {
            return null;
        }
        links.remove(link.key);
        closeLink(link, "deobserved");
        return link.comet;
    }

    OortComet comet(String cometURL) {
        Link link = linkFor(cometURL);
        return link == null ? null : link.comet;
    }

    String joinedId(String cometURL) {
        Link link = linkFor(cometURL);
        return link != null && link.joined ? link.remoteId : null;
    }

    void subscribeAll(String channel) {
        links.values().forEach(link -> subscribeOnce(link.comet.getClient(), channel));
    }

    void unsubscribeAll(String channel) {
        links.values().forEach(link -> link.comet.getClient().getChannel(channel).unsubscribe(oort.subscribedListener()));
    }

    /** Closes every link (stopping); returns their clients. */
    List<BayeuxClient> closeAll() {
        List<BayeuxClient> clients = new ArrayList<>();
        for (Link link : List.copyOf(links.values())) {
            clients.add(link.comet.getClient());
            closeLink(link, "stopping");
        }
        links.clear();
        return clients;
    }

    /**
     * Off the actor, after {@link #closeAll}: waits for the clients to be disconnected, at most
     * {@code timeout} for them all, then closes them, disconnected or not.
     */
    static void close(List<BayeuxClient> clients, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (BayeuxClient client : clients) {
            try {
                client.waitFor(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())), BayeuxClient.State.DISCONNECTED);
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        clients.forEach(BayeuxClient::close);
    }

    Link linkFor(String cometURL) {
        Link link = links.get(cometURL);
        if (link == null) {
            String alias = aliases.get(cometURL);
            link = alias == null ? null : links.get(alias);
        }
        return link;
    }

    Link newLink(String cometURL) {
        return newLink(cometURL, null);
    }

    Link newLink(String cometURL, String alias) {
        BayeuxClient client = LinkClients.newClient(oort, cometURL);
        OortComet comet = new OortComet(cometURL, client);
        Link link = new Link(cometURL, comet);
        link.alias = alias;
        links.put(cometURL, link);
        client.getChannel("/meta/handshake").addListener((ClientSessionChannel.MessageListener) (channel, message) -> {
            Map<String, Object> ext = Oort.oortExt(message);
            boolean successful = message.isSuccessful();
            String clientId = message.getClientId();
            oort.post(() -> cometHandshook(link, successful, clientId, ext));
        });
        client.getChannel("/meta/connect").addListener((ClientSessionChannel.MessageListener) (channel, message) -> {
            if (message.isSuccessful()) {
                oort.post(() -> check(link));
            }
        });
        client.getChannel("/**").addListener((ClientSessionChannel.MessageListener) (channel, message) -> received(message));
        LOG.debug("Linking {} to {}", oort.getURL(), cometURL);
        client.handshake(LinkClients.handshakeFields(oort, cometURL, alias), null);
        return link;
    }

    /** On the comet's I/O thread: a message from the other node. */
    private void received(Message message) {
        if (message.isMeta() || message.isPublishReply()) {
            return;
        }
        String channel = message.getChannel();
        if (Oort.OORT_CLOUD_CHANNEL.equals(channel)) {
            Object data = message.getData();
            oort.post(() -> cloudReceived(data));
            return;
        }
        oort.republisher().offer(channel, message.getData());
    }

    void cometHandshook(Link link, boolean successful, String clientId, Map<String, Object> ext) {
        if (link.closed || links.get(link.key) != link) {
            return;
        }
        String remoteId = ext == null ? null : (String) ext.get(Oort.EXT_OORT_ID_FIELD);
        String remoteURL = ext == null ? null : (String) ext.get(Oort.EXT_OORT_URL_FIELD);
        if (!successful) {
            if (oort.getId().equals(remoteId)) {
                LOG.debug("{} is this node: not linking to it", link.comet.getURL());
                selfURLs.add(link.comet.getURL());
                links.remove(link.key);
                closeLink(link, "self");
            } else {
                LOG.debug("Handshake of {} to {} refused", oort.getURL(), link.comet.getURL());
            }
            return;
        }
        if (remoteURL != null && !remoteURL.equals(link.key)) {
            Link other = links.get(remoteURL);
            if (other != null && other != link) {
                LOG.debug("{} is {}, already linked: closing the duplicate", link.key, remoteURL);
                aliases.put(link.comet.getURL(), remoteURL);
                links.remove(link.key);
                closeLink(link, "duplicate");
                return;
            }
            if (oort.getURL().equals(remoteURL)) {
                selfURLs.add(link.comet.getURL());
                links.remove(link.key);
                closeLink(link, "self");
                return;
            }
            links.remove(link.key);
            aliases.put(link.key, remoteURL);
            link.key = remoteURL;
            links.put(remoteURL, link);
        }
        if (link.remoteId != null && remoteId != null && !link.remoteId.equals(remoteId)) {
            linkDown(link, "restarted with a new id");
        } else if (link.joined && link.cometSessionId != null && !link.cometSessionId.equals(clientId)) {
            linkDown(link, "re-handshook");
        }
        if (remoteId != null) {
            link.remoteId = remoteId;
        }
        link.cometSessionId = clientId;
        link.comet.remote(remoteId, remoteURL);
        check(link);
    }

    void incomingHandshook(ServerSession session) {
        if (!oort.isRunning() || !oort.isOort(session)) {
            return;
        }
        String remoteURL = (String) session.getAttribute(Oort.REMOTE_URL_ATTRIBUTE);
        String remoteId = (String) session.getAttribute(Oort.REMOTE_ID_ATTRIBUTE);
        if (!session.isHandshook()) {
            return;
        }
        Link link = linkFor(remoteURL);
        if (link == null && session.getAttribute(Oort.ALIAS_URL_ATTRIBUTE) instanceof String alias && links.get(alias) != null) {
            // A link back (as CometD says, with oortAliasURL): this node is still dialing the other
            // one by that alias; that link is the one, no second link is made.
            link = links.get(alias);
            aliases.put(remoteURL, alias);
        }
        if (link == null) {
            if (selfURLs.contains(remoteURL)) {
                return;
            }
            link = newLink(remoteURL, (String) session.getAttribute(Oort.DIALED_URL_ATTRIBUTE));
        }
        if (link.remoteId != null && !link.remoteId.equals(remoteId)) {
            linkDown(link, "restarted with a new id");
        }
        link.remoteId = remoteId;
        if (link.incoming != null && link.incoming != session && isDuplicate(link.incoming, session)) {
            // The same node dialed this one again under another name (an alias of its URL): the
            // link it has stays, the duplicate goes (its dialer closes it too when it learns who we are).
            LOG.debug("{} linked again through {}: keeping its first link", remoteURL, session.getAttribute(Oort.DIALED_URL_ATTRIBUTE));
            oort.getBayeuxServer().removeSession(session);
            return;
        }
        if (link.incoming != null && link.incoming != session) {
            ServerSession old = link.incoming;
            if (link.joined) {
                linkDown(link, "linked again");
            }
            link.incoming = null;
            oort.getBayeuxServer().removeSession(old);
        }
        link.incoming = session;
        link.remoteAnnounced = false;
        check(link);
    }

    /** Whether {@code next} comes from the node of {@code current} (same id) that dialed this node by another URL. */
    private static boolean isDuplicate(ServerSession current, ServerSession next) {
        Object currentId = current.getAttribute(Oort.REMOTE_ID_ATTRIBUTE);
        Object dialed = current.getAttribute(Oort.DIALED_URL_ATTRIBUTE);
        return currentId != null && currentId.equals(next.getAttribute(Oort.REMOTE_ID_ATTRIBUTE))
                && dialed != null && !dialed.equals(next.getAttribute(Oort.DIALED_URL_ATTRIBUTE));
    }

    void incomingGone(ServerSession session) {
        for (Link link : links.values()) {
            if (link.incoming == session) {
                link.incoming = null;
                link.remoteAnnounced = false;
                if (link.joined) {
                    linkDown(link, "its session here ended");
                }
                return;
            }
        }
    }

    void remoteAnnounced(ServerSession from, Map<String, Object> data) {
        String remoteURL = (String) from.getAttribute(Oort.REMOTE_URL_ATTRIBUTE);
        Link link = remoteURL == null ? null : linkFor(remoteURL);
        if (link == null || link.incoming != from) {
            LOG.debug("Announcement {} from a session that is no current link: ignored", data);
            return;
        }
        link.remoteAnnounced = true;
        check(link);
    }

    void cloudReceived(Object data) {
        if (!oort.isRunning() || !(data instanceof List<?> urls)) {
            return;
        }
        for (Object candidate : urls) {
            if (candidate instanceof String cometURL && !selfURLs.contains(cometURL) && linkFor(cometURL) == null) {
                try {
                    newLink(cometURL);
                } catch (IllegalArgumentException x) {
                    LOG.warn("Ignoring a bad URL in {}: {}", Oort.OORT_CLOUD_CHANNEL, cometURL);
                }
            }
        }
    }

    void checkAll() {
        try {
            for (Link link : List.copyOf(links.values())) {
                check(link);
            }
        } catch (RuntimeException x) {
            LOG.warn("Link check failed", x);
        }
    }

    /** Moves a link forward: down when a direction broke, the join batch once both are up, joined once announced. */
    private void check(Link link) {
        if (link.closed || !oort.isRunning()) {
            return;
        }
        BayeuxClient client = link.comet.getClient();
        BayeuxClient.State state = client.getState();
        boolean connected = state == BayeuxClient.State.CONNECTED;
        if (link.joined && !connected) {
            linkDown(link, "link " + state);
        }
        if (link.incoming != null && !link.incoming.isHandshook()) {
            incomingGone(link.incoming);
        }
        if (state == BayeuxClient.State.DISCONNECTED) {
            long now = System.nanoTime();
            if (link.redialAt == 0) {
                link.redialAt = now + TimeUnit.MILLISECONDS.toNanos(backoff(link.redials++));
            } else if (now - link.redialAt >= 0) {
                link.redialAt = 0;
                LOG.debug("Linking {} to {} again", oort.getURL(), link.comet.getURL());
                // A new handshake (unlike the client's own re-handshake) does not subscribe again by
                // itself: forget the old subscriptions (nothing is sent while disconnected), the join batch makes them anew.
                client.getChannel(Oort.OORT_CLOUD_CHANNEL).unsubscribe(oort.subscribedListener());
                for (String channel : oort.observed()) {
                    client.getChannel(channel).unsubscribe(oort.subscribedListener());
                }
                try {
                    client.handshake(LinkClients.handshakeFields(oort, link.comet.getURL(), link.alias), null);
                } catch (IllegalStateException x) {
                    LOG.debug("Cannot handshake {} yet", client, x);
                }
            }
            return;
        }
        if (!connected) {
            return;
        }
        link.redials = 0;
        ServerSession incoming = link.incoming;
        if (incoming == null) {
            return;
        }
        String key = client.getId() + "|" + incoming.getId();
        if (!key.equals(link.batchKey)) {
            link.batchKey = key;
            sendJoinBatch(link, key);
        }
        // Joined only once the other node acknowledged this session's announcement: a comet that
        // still looks connected on a session the other node already forgot (its expiry raced this
        // side's timeout) must not join, or it would leave again as soon as it re-handshakes.
        if (link.remoteAnnounced && key.equals(link.acknowledgedKey) && !link.joined) {
            link.joined = true;
            updateKnown();
            LOG.info("Oort {}: {} joined ({})", oort.getURL(), link.key, link.remoteId);
            fire(true, link);
        }
    }

    private long backoff(int attempts) {
        return Math.min(oort.maxBackoff().toMillis(), 500L * (attempts + 1));
    }

    /** On the actor: the other node answered the announcement of the join batch sent for {@code key}. */
    private void announcementReplied(Link link, String key, boolean successful) {
        if (link.closed || !key.equals(link.batchKey)) {
            return;
        }
        if (successful) {
            link.acknowledgedKey = key;
            check(link);
        } else {
            // Lost or refused: sent again by a later check (the next tick, or connect), on this
            // session if it still holds, else on the next one, which a forgotten session leads to.
            LOG.debug("Oort {}: announcement to {} failed on {}", oort.getURL(), link.key, key);
            link.batchKey = null;
        }
    }

    private void sendJoinBatch(Link link, String key) {
        BayeuxClient client = link.comet.getClient();
        // As CometD: the URLs of the nodes this one has handshaken with (the receiver among them), never its own.
        Set<String> handshaken = new TreeSet<>();
        for (Link other : links.values()) {
            if (!other.closed && other.comet.getRemoteURL() != null && other.comet.getClient().getState() == BayeuxClient.State.CONNECTED) {
                handshaken.add(other.key);
            }
        }
        List<String> cloud = new ArrayList<>(handshaken);
        Map<String, Object> announce = new LinkedHashMap<>();
        announce.put(Oort.EXT_OORT_ID_FIELD, oort.getId());
        announce.put(Oort.EXT_OORT_URL_FIELD, oort.getURL());
        client.batch(() -> {
            subscribeOnce(client, Oort.OORT_CLOUD_CHANNEL);
            for (String channel : oort.observed()) {
                subscribeOnce(client, channel);
            }
            client.getChannel(Oort.OORT_CLOUD_CHANNEL).publish(cloud);
            client.getChannel(Oort.OORT_SERVICE_CHANNEL).publish(announce,
                    reply -> oort.post(() -> announcementReplied(link, key, reply.isSuccessful())));
        });
    }

    void subscribeOnce(BayeuxClient client, String channel) {
        ClientSessionChannel clientChannel = client.getChannel(channel);
        if (!clientChannel.getSubscribers().contains(oort.subscribedListener())) {
            clientChannel.subscribe(oort.subscribedListener());
        }
    }

    /** A direction of the link broke: the node leaves, and its session here goes so that it notices too. */
    private void linkDown(Link link, String reason) {
        link.batchKey = null;
        link.acknowledgedKey = null;
        link.remoteAnnounced = false;
        if (!link.joined) {
            return;
        }
        link.joined = false;
        updateKnown();
        LOG.info("Oort {}: {} left ({}): {}", oort.getURL(), link.key, link.remoteId, reason);
        fire(false, link);
        ServerSession incoming = link.incoming;
        if (incoming != null) {
            link.incoming = null;
            oort.getBayeuxServer().removeSession(incoming);
        }
    }

    void closeLink(Link link, String reason) {
        linkDown(link, reason);
        link.closed = true;
        ServerSession incoming = link.incoming;
        link.incoming = null;
        if (incoming != null) {
            oort.getBayeuxServer().removeSession(incoming);
        }
        link.comet.getClient().disconnect();
        if (!"stopping".equals(reason)) {
            link.comet.getClient().close();
        }
    }

    private void updateKnown() {
        Set<String> joined = new LinkedHashSet<>();
        for (Link link : links.values()) {
            if (link.joined) {
                joined.add(link.key);
            }
        }
        oort.known(Set.copyOf(joined));
    }

    private void fire(boolean joined, Link link) {
        CometListener.Event event = new CometListener.Event(oort, link.remoteId, link.key);
        for (CometListener listener : oort.cometListeners()) {
            try {
                if (joined) {
                    listener.cometJoined(event);
                } else {
                    listener.cometLeft(event);
                }
            } catch (RuntimeException x) {
                LOG.warn("CometListener {} failed on {}", listener, event, x);
            }
        }
    }
}
