package io.bayeux.oort.seti;

import io.bayeux.api.Message;
import io.bayeux.api.Promise;
import io.bayeux.api.server.ConfigurableServerChannel;
import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.oort.CometListener;
import io.bayeux.oort.Oort;
import io.bayeux.oort.object.Timers;
import io.bayeux.presence.Presence;
import io.bayeux.presence.PresenceTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Where users are in an Oort cloud, speaking CometD's Seti protocol: a user is associated
 * with sessions on one or more nodes; every node knows on which nodes each user is present,
 * and {@link #sendMessage} reaches the user's sessions wherever they are.
 *
 * <p>Each node has channel {@code /seti/<id>} (its URL with every run of non-alphanumeric
 * characters replaced by {@code _}) and shares {@code /seti/all}; {@code SetiMessages} tells
 * what goes on them, and when, as in CometD 8. When a node leaves (it stopped, died, or its link broke), every presence it had is
 * removed. A presence from a node not joined is kept (a joining node sends its snapshot before
 * it counts as joined here), but, as {@code OortObject} does with parts, the users of a node
 * that has not been joined for a failure timeout are removed and the listeners told: so a
 * presence handled after its node left (queued while the node was removed) does not stay.
 * Until a failure timeout after a node left, and until it sends a snapshot again (as it does
 * when it joins again), its other presence messages are late ones and are dropped: they do not
 * come back for that time at all.
 *
 * <p>Applications use it through {@link Presence}, which cluster-redis' {@code RedisSeti}
 * implements too; a node's name there ({@link #getNode()}, {@link PresenceListener.Event#node()})
 * is its Oort URL.
 *
 * <p>Thread-safe: the state is guarded by {@code this}. Listeners are told after the lock is
 * released, in the order the changes were applied: on the thread that caused the change, unless
 * another thread is telling them of an earlier one (that thread then tells of this one too, right
 * after). Changes arrive on several threads (the links' presence messages, the sweep and the
 * departures of nodes, the application's associations), yet one thread at a time tells them, so
 * a listener that keeps a tally never sees a user leave a node before it arrived there. A change
 * made with no other under way is told before the method that made it returns; one made by a
 * listener, after that listener returns.
 */
public class Seti implements Presence {
    public static final String SETI_ALL_CHANNEL = "/seti/all";
    public static final String USER_IDS_FIELD = "userIds";
    public static final String OORT_URL_FIELD = "oortURL";
    public static final String PRESENCE_FIELD = "presence";
    public static final String REPLACE_FIELD = "replace";
    public static final String ALIVE_FIELD = "alive";
    public static final String USER_ID_FIELD = "userId";
    public static final String CHANNEL_FIELD = "channel";
    public static final String SETI_ID_FIELD = "setiId";
    public static final String DATA_FIELD = "data";

    private static final Logger LOG = LoggerFactory.getLogger(Seti.class);

    private final Oort oort;
    private final String setiId;
    private final CometListener cometListener = new CometListener() {
        @Override
        public void cometJoined(Event event) {
            sendSnapshot(event.cometURL());
        }

        @Override
        public void cometLeft(Event event) {
            removeNode(event.cometURL(), true);
        }
    };
    /** Guarded by this (but for telling its listeners): the users here and on each other node, by its URL. */
    private final PresenceTable table = new PresenceTable(this);
    private volatile LocalSession session;
    /** Guarded by this: the nodes whose presence messages are late ones, or whose users are stale. */
    private final Departures departures = new Departures();
    private volatile ScheduledFuture<?> sweep;
    /** Another node subscribing to /seti/all here is sent this node's users, asking for its own back. */
    private final ServerChannel.SubscriptionListener initialState = new ServerChannel.SubscriptionListener() {
        @Override
        public void subscribed(ServerSession subscriber, ServerChannel channel, ServerMessage message) {
            LocalSession s = session;
            if (s != null && !subscriber.isLocalSession() && oort.isOort(subscriber)) {
                // Queued under the lock, like every change of this node's users: one made meanwhile
                // follows the snapshot that lacks it, instead of being undone by it.
                synchronized (Seti.this) {
                    Map<String, Object> snapshot = snapshot();
                    snapshot.put(ALIVE_FIELD, true);
                    subscriber.deliver(s, SETI_ALL_CHANNEL, snapshot, Promise.noop());
                }
            }
        }

        @Override
        public void unsubscribed(ServerSession subscriber, ServerChannel channel, ServerMessage message) {
        }
    };

    public Seti(Oort oort) {
        this.oort = Objects.requireNonNull(oort, "oort");
        this.setiId = setiId(oort.getURL());
    }

    /** The Seti id of a node: its URL with every run of non-alphanumeric characters replaced by {@code _}. */
    public static String setiId(String oortURL) {
        return oortURL.replaceAll("[^a-zA-Z0-9]+", "_");
    }

    /** The channel of a node: {@code /seti/<its Seti id>}. */
    public static String setiChannel(String oortURL) {
        return "/seti/" + setiId(oortURL);
    }

    public Oort getOort() {
        return oort;
    }

    /** This node's Seti id (its URL with every run of non-alphanumeric characters replaced by {@code _}). */
    public String getId() {
        return setiId;
    }

    /** This node's name in presence: its Oort URL. */
    @Override
    public String getNode() {
        return oort.getURL();
    }

    /** Starts: observes {@code /seti/all} and this node's channel, and tells the cloud of this node's users. Start the Oort first. */
    public synchronized void start() {
        if (session != null) {
            throw new IllegalStateException("Already started: " + this);
        }
        LocalSession s = oort.getBayeuxServer().newLocalSession("seti");
        s.handshake();
        s.getChannel(SETI_ALL_CHANNEL).subscribe((channel, message) -> received(message));
        s.getChannel(setiChannel(oort.getURL())).subscribe((channel, message) -> received(message));
        session = s;
        oort.getBayeuxServer().createChannelIfAbsent(SETI_ALL_CHANNEL, ConfigurableServerChannel.Initializer.persistent()).getReference().addListener(initialState);
        // The links subscribe to /seti/all on the other nodes, which send their users back.
        oort.observeChannel(SETI_ALL_CHANNEL);
        oort.observeChannel(setiChannel(oort.getURL()));
        oort.addCometListener(cometListener);
        long period = Math.max(100, oort.getFailureTimeout().toMillis() / 4);
        sweep = Timers.scheduler().scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.MILLISECONDS);
    }

    public void stop() {
        LocalSession s;
        synchronized (this) {
            s = session;
            session = null;
        }
        if (s == null) {
            return;
        }
        ScheduledFuture<?> task = sweep;
        if (task != null) {
            task.cancel(false);
        }
        // As CometD: an empty snapshot, so that the other nodes drop this node's users now.
        s.getChannel(SETI_ALL_CHANNEL).publish(SetiMessages.stopping(oort.getURL()));
        ServerChannel all = oort.getBayeuxServer().getChannel(SETI_ALL_CHANNEL);
        if (all != null) {
            all.removeListener(initialState);
        }
        oort.removeCometListener(cometListener);
        oort.deobserveChannel(SETI_ALL_CHANNEL);
        oort.deobserveChannel(setiChannel(oort.getURL()));
        synchronized (this) {
            for (String userId : table.disassociateAll()) {
                queue(false, userId, oort.getURL(), true);
            }
            Map<String, Set<String>> remote = table.remote();
            remote.forEach((url, users) -> users.forEach(userId -> queue(false, userId, url, false)));
            remote.clear();
            departures.clear();
        }
        s.disconnect();
        table.notifyListeners();
    }

    // --- associations

    /**
     * Associates {@code userId} with a local session; the association ends when the session
     * does. The first association of a user on this node makes it present in the cloud.
     *
     * @return whether the association is new
     */
    @Override
    public boolean associate(String userId, ServerSession serverSession) {
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(serverSession, "session");
        boolean added;
        boolean first;
        synchronized (this) {
            first = !table.isAssociated(userId);
            added = table.associate(userId, serverSession);
            if (first && added) {
                // Queued before the publication, which may apply a message from another node here.
                queue(true, userId, oort.getURL(), true);
                // Sent in the order the users changed, and never before a snapshot that lacks it.
                publish(SETI_ALL_CHANNEL, presence(List.of(userId), true));
            }
        }
        if (added) {
            serverSession.addListener(PresenceTable.disassociator(this, userId));
        }
        table.notifyListeners();
        return added;
    }

    /**
     * Ends one association; the last one of a user on this node makes it absent here.
     *
     * @return whether the association existed
     */
    @Override
    public boolean disassociate(String userId, ServerSession serverSession) {
        boolean removed;
        boolean last = false;
        synchronized (this) {
            removed = table.disassociate(userId, serverSession);
            last = removed && !table.isAssociated(userId);
            if (last) {
                queue(false, userId, oort.getURL(), true);
                publish(SETI_ALL_CHANNEL, presence(List.of(userId), false));
            }
        }
        table.notifyListeners();
        return removed;
    }

    /** Ends every local association of {@code userId}; returns the sessions it had. */
    @Override
    public Set<ServerSession> disassociate(String userId) {
        Set<ServerSession> sessions;
        synchronized (this) {
            sessions = table.disassociate(userId);
            if (sessions != null) {
                queue(false, userId, oort.getURL(), true);
                publish(SETI_ALL_CHANNEL, presence(List.of(userId), false));
            }
        }
        table.notifyListeners();
        return sessions == null ? Set.of() : sessions;
    }

    /** Whether {@code userId} is associated with a session on this node. */
    @Override
    public synchronized boolean isAssociated(String userId) {
        return table.isAssociated(userId);
    }

    /** How many local sessions {@code userId} has here. */
    @Override
    public synchronized int getAssociationCount(String userId) {
        return table.getAssociationCount(userId);
    }

    /** Whether {@code userId} is present on any node of the cloud, this one included. */
    @Override
    public synchronized boolean isPresent(String userId) {
        return table.isPresent(userId);
    }

    /** The users associated on this node. */
    @Override
    public synchronized Set<String> getAssociatedUserIds() {
        return table.getAssociatedUserIds();
    }

    /** The users present anywhere in the cloud. */
    @Override
    public synchronized Set<String> getUserIds() {
        return table.getUserIds();
    }

    /** The nodes where {@code userId} is present, this one included: their Oort URLs, as {@link #getOortURLs}. */
    @Override
    public Set<String> getNodes(String userId) {
        return getOortURLs(userId);
    }

    /** The URLs of the nodes where {@code userId} is present, this one included. */
    public synchronized Set<String> getOortURLs(String userId) {
        return table.nodes(oort.getURL(), userId);
    }

    // --- messages

    /**
     * Sends {@code data} on {@code channel} to every session of {@code userId}: delivered
     * directly to the local ones; published on {@code /seti/<id>} of each other node where the
     * user is present; on {@code /seti/all} when it is present nowhere known.
     */
    @Override
    public void sendMessage(String userId, String channel, Object data) {
        sendMessage(List.of(userId), channel, data);
    }

    @Override
    public void sendMessage(Collection<String> userIds, String channel, Object data) {
        Objects.requireNonNull(channel, "channel");
        for (String userId : userIds) {
            List<ServerSession> sessions;
            List<String> nodes;
            synchronized (this) {
                sessions = table.sessions(userId);
                nodes = table.remoteNodes(userId);
            }
            for (ServerSession s : sessions) {
                s.deliver(null, channel, data, Promise.noop());
            }
            Map<String, Object> message = SetiMessages.toUser(userId, channel, setiId, data);
            if (!nodes.isEmpty()) {
                for (String url : nodes) {
                    publish(setiChannel(url), message);
                }
            } else if (sessions.isEmpty()) {
                publish(SETI_ALL_CHANNEL, message);
            }
        }
    }

    // --- listeners

    @Override
    public void addPresenceListener(Presence.PresenceListener listener) {
        table.addListener(listener);
    }

    @Override
    public void removePresenceListener(Presence.PresenceListener listener) {
        table.removeListener(listener);
    }

    /**
     * Seti's name for {@link Presence.PresenceListener}, kept for the code written against it:
     * the same methods and {@code Event}, whose node is the Oort URL ({@link Presence.PresenceListener.Event#oortURL()}).
     */
    public interface PresenceListener extends Presence.PresenceListener {
    }

    // --- the protocol

    private Map<String, Object> presence(List<String> userIds, boolean present) {
        return SetiMessages.presence(oort.getURL(), userIds, present);
    }

    /** This node's users, replacing what the receiver had of them (CometD's snapshot; the caller may add "alive"). */
    private Map<String, Object> snapshot() {
        List<String> users;
        synchronized (this) {
            users = new ArrayList<>(new TreeSet<>(table.localUserIds()));
        }
        return SetiMessages.snapshot(oort.getURL(), users);
    }

    /** Under the lock, in order with the changes (see the subscription listener). */
    private synchronized void sendSnapshot(String oortURL) {
        publish(setiChannel(oortURL), snapshot());
    }

    private void publish(String channel, Map<String, Object> data) {
        LocalSession s = session;
        if (s != null) {
            s.getChannel(channel).publish(data);
        }
    }

    private void received(Message message) {
        Map<String, Object> data = message.getDataAsMap();
        if (data == null) {
            return;
        }
        if (data.containsKey(USER_IDS_FIELD)) {
            presenceReceived(data);
        } else if (data.containsKey(USER_ID_FIELD)) {
            messageReceived(data);
        }
    }

    private void presenceReceived(Map<String, Object> data) {
        if (!(data.get(OORT_URL_FIELD) instanceof String url) || url.equals(oort.getURL()) || !(data.get(USER_IDS_FIELD) instanceof List<?> ids)) {
            return;
        }
        Set<String> userIds = new LinkedHashSet<>();
        for (Object id : ids) {
            if (id instanceof String s) {
                userIds.add(s);
            }
        }
        boolean present = !Boolean.FALSE.equals(data.get(PRESENCE_FIELD));
        boolean replace = Boolean.TRUE.equals(data.get(REPLACE_FIELD));
        // The node's last word as it stops: it leaves, and what it said before that is late.
        boolean stopping = replace && Boolean.FALSE.equals(data.get(ALIVE_FIELD));
        synchronized (this) {
            if (stopping) {
                departures.removed(url, true, System.nanoTime());
            } else if (!departures.accepts(url, replace)) {
                LOG.debug("{}: a presence of {}, which left, came late: dropped", this, url);
                return;
            }
            Map<String, Set<String>> remote = table.remote();
            Set<String> users = remote.computeIfAbsent(url, k -> new LinkedHashSet<>());
            if (replace) {
                for (String old : List.copyOf(users)) {
                    if (!userIds.contains(old)) {
                        users.remove(old);
                        queue(false, old, url, false);
                    }
                }
            }
            for (String userId : userIds) {
                if (present ? users.add(userId) : users.remove(userId)) {
                    queue(present, userId, url, false);
                }
            }
            if (users.isEmpty()) {
                remote.remove(url);
            }
        }
        table.notifyListeners();
        if (Boolean.TRUE.equals(data.get(ALIVE_FIELD))) {
            sendSnapshot(url);
        }
    }

    private void messageReceived(Map<String, Object> data) {
        if (!(data.get(USER_ID_FIELD) instanceof String userId) || !(data.get(CHANNEL_FIELD) instanceof String channel)
                || setiId.equals(data.get(SETI_ID_FIELD))) {
            return;
        }
        List<ServerSession> sessions;
        synchronized (this) {
            sessions = table.sessions(userId);
        }
        if (sessions.isEmpty()) {
            LOG.debug("Seti message for {}, not here: dropped", userId);
        }
        for (ServerSession s : sessions) {
            s.deliver(null, channel, data.get(DATA_FIELD), Promise.noop());
        }
    }

    /** @param left whether the node left (rather than never joined): its presence messages still to come are late ones */
    private void removeNode(String url, boolean left) {
        synchronized (this) {
            Set<String> users = table.remote().remove(url);
            departures.removed(url, left, System.nanoTime());
            if (users != null) {
                users.forEach(userId -> queue(false, userId, url, false));
            }
        }
        table.notifyListeners();
    }

    /** Removes the users of the nodes that have not been joined for a failure timeout (as {@code OortObject}'s sweep). */
    private void sweep() {
        try {
            Set<String> known = oort.getKnownComets();
            long now = System.nanoTime();
            long limit = oort.getFailureTimeout().toNanos();
            List<String> stale;
            synchronized (this) {
                stale = departures.stale(table.remote().keySet(), known, now, limit);
            }
            for (String url : stale) {
                // Joined since the snapshot of the known nodes above: its users stay.
                if (!oort.getKnownComets().contains(url)) {
                    LOG.debug("{}: removing the users of {}, not joined for {}", this, url, oort.getFailureTimeout());
                    removeNode(url, false);
                }
            }
        } catch (RuntimeException x) {
            LOG.warn("{}: sweep failed", this, x);
        }
    }

    /** Under the lock, with the change: see the class comment. */
    private void queue(boolean added, String userId, String url, boolean isLocal) {
        table.queue(this, added, userId, url, isLocal);
    }

    @Override
    public String toString() {
        return "Seti[" + setiId + "]";
    }
}
