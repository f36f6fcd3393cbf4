package io.bayeux.cluster.redis;

import io.bayeux.api.Promise;
import io.bayeux.api.server.ServerSession;
import io.bayeux.presence.Presence;
import io.bayeux.presence.PresenceTable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Presence over Redis: the {@link Presence} API of Oort's {@code Seti} (so the same application
 * code runs on a mesh or on Redis), users associated with local sessions, known on every node of
 * a {@link RedisCluster}. A node's name in presence ({@link #getNode()},
 * {@link Presence.PresenceListener.Event#node()}) is its cluster node id.
 * <p>
 * Each node keeps its users in the Redis set {@code <prefix>presence:<nodeId>}, which expires
 * after the presence TTL unless the node refreshes it (every third of the TTL: the heartbeat,
 * which also re-publishes the node's users after Redis lost them). Changes are announced on
 * {@code <prefix>presence}; every node also re-reads all the presence sets at each heartbeat,
 * so a node that died without a word ({@code kill -9}) loses its users everywhere within the
 * TTL plus one heartbeat. Messages for a user on another node go to that node's own Redis
 * channel {@code <prefix>seti:<nodeId>}.
 * <p>
 * Thread-safe: the state is guarded by {@code this}. Changes are applied on several threads
 * (the application's associations, the presence channel's deliveries, the heartbeat), and the
 * listeners are told after the lock is released, in the order the changes were applied, one
 * thread at a time: the one that caused the change, unless another is telling them of an earlier
 * one (that thread then tells of this one too, right after). A change made with no other under
 * way is told before the method that made it returns; one made by a listener, after that
 * listener returns (see {@link PresenceTable}).
 */
public class RedisSeti implements Presence, AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(RedisSeti.class);

    private final RedisCluster cluster;
    /** Guarded by this (but for telling its listeners): the users here and on each other node, by its id. */
    private final PresenceTable table = new PresenceTable(this);
    private final Duration ttl;
    private final PresenceStore store;
    private ScheduledExecutorService scheduler;
    private long events;
    private boolean started;

    /** Presence on {@code cluster}, its users living {@link RedisConfig#presenceTtl()} without a heartbeat. */
    public RedisSeti(RedisCluster cluster) {
        this(cluster, cluster.getConfig().presenceTtl());
    }

    /** For tests that run nodes with different TTLs on one config. */
    RedisSeti(RedisCluster cluster, Duration ttl) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.ttl = Objects.requireNonNull(ttl, "ttl");
        this.store = new PresenceStore(cluster, ttl);
    }

    public RedisCluster getCluster() {
        return cluster;
    }

    /** This node's id (the cluster's). */
    public String getId() {
        return cluster.getNodeId();
    }

    /** This node's name in presence: its cluster node id, as {@link #getId()}. */
    @Override
    public String getNode() {
        return getId();
    }

    /** How long a node's users outlive its last heartbeat (heartbeat every third of it). */
    public Duration getPresenceTtl() {
        return ttl;
    }

    /** Starts presence; the cluster must be started. */
    public synchronized void start() {
        if (started) {
            return;
        }
        if (!cluster.isStarted()) {
            throw new IllegalStateException("the cluster is not started");
        }
        started = true;
        cluster.subscribeDirect(store.channel(), this::presenceArrived);
        cluster.subscribeDirect(store.setiChannel(getId()), this::messageArrived);
        scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "redis-seti-heartbeat");
            thread.setDaemon(true);
            return thread;
        });
        long period = Math.max(100, ttl.toMillis() / 3);
        scheduler.scheduleWithFixedDelay(this::heartbeat, 0, period, TimeUnit.MILLISECONDS);
    }

    /** Stops presence: this node's users leave the cluster at once, and its listeners hear that every user it knew of is gone. */
    public void stop() {
        List<String> users;
        synchronized (this) {
            if (!started) {
                return;
            }
            started = false;
            // As Seti: the node's own users leave, and its listeners hear of it.
            users = table.disassociateAll();
            for (String userId : users) {
                queue(false, userId, getId(), true);
            }
        }
        scheduler.shutdownNow();
        try {
            scheduler.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
        cluster.unsubscribeDirect(store.channel());
        cluster.unsubscribeDirect(store.setiChannel(getId()));
        store.leave(users);
        synchronized (this) {
            // The other nodes' users are no longer known here: the listeners hear that too.
            Map<String, Set<String>> remote = table.remote();
            remote.forEach((node, ids) -> ids.forEach(userId -> queue(false, userId, node, false)));
            remote.clear();
        }
        table.notifyListeners();
    }

    /** {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    // --- associations

    /** Associates {@code userId} with a local session; the association ends when the session does. */
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
                queue(true, userId, getId(), true);
                // Under the lock (the commands are only queued on the connection): Redis gets a
                // user's arrivals and departures in the order they were made here.
                announce(userId, true);
            }
        }
        if (added) {
            serverSession.addListener(PresenceTable.disassociator(this, userId));
        }
        table.notifyListeners();
        return added;
    }

    /** Ends one association; the last one of a user on this node makes it absent here. */
    @Override
    public boolean disassociate(String userId, ServerSession serverSession) {
        boolean removed;
        boolean last = false;
        synchronized (this) {
            removed = table.disassociate(userId, serverSession);
            last = removed && !table.isAssociated(userId);
            if (last) {
                queue(false, userId, getId(), true);
                announce(userId, false);
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
                queue(false, userId, getId(), true);
                announce(userId, false);
            }
        }
        if (sessions == null) {
            return Set.of();
        }
        table.notifyListeners();
        return sessions;
    }

    @Override
    public synchronized boolean isAssociated(String userId) {
        return table.isAssociated(userId);
    }

    @Override
    public synchronized int getAssociationCount(String userId) {
        return table.getAssociationCount(userId);
    }

    /** Whether {@code userId} is present on any node, this one included. */
    @Override
    public synchronized boolean isPresent(String userId) {
        return table.isPresent(userId);
    }

    @Override
    public synchronized Set<String> getAssociatedUserIds() {
        return table.getAssociatedUserIds();
    }

    /** The users present anywhere in the cluster. */
    @Override
    public synchronized Set<String> getUserIds() {
        return table.getUserIds();
    }

    /** The ids of the nodes where {@code userId} is present, this one included (Seti's {@code getOortURLs}). */
    @Override
    public Set<String> getNodes(String userId) {
        return getNodeIds(userId);
    }

    /** The ids of the nodes where {@code userId} is present, this one included: {@link #getNodes}. */
    public synchronized Set<String> getNodeIds(String userId) {
        return table.nodes(getId(), userId);
    }

    // --- messages

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
            if (nodes.isEmpty()) {
                continue;
            }
            String json = store.message(userId, channel, data);
            if (json == null) {
                continue;
            }
            for (String node : nodes) {
                store.publish(store.setiChannel(node), json);
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

    /** {@link Presence.PresenceListener} under this class's name: the node of its events is a node id. */
    public interface PresenceListener extends Presence.PresenceListener {
    }

    // --- Redis

    /** Under the lock: queues the commands on the Redis connection, waiting for no answer. */
    private void announce(String userId, boolean present) {
        if (!isStarted()) {
            return;
        }
        try {
            store.announce(userId, present);
        } catch (RuntimeException x) {
            // Redis away and the buffer full: the heartbeat publishes the users again.
            LOGGER.debug("Presence of {} not announced yet: {}", userId, x.toString());
        }
    }

    private synchronized Set<String> localUserIds() {
        return Set.copyOf(table.localUserIds());
    }

    private synchronized boolean isStarted() {
        return started;
    }

    private void presenceArrived(String json) {
        Map<?, ?> event = PresenceStore.parse(json);
        if (event == null || !(event.get("node") instanceof String node) || !(event.get("userId") instanceof String userId) || getId().equals(node)) {
            return;
        }
        boolean present = Boolean.TRUE.equals(event.get("present"));
        synchronized (this) {
            if (!started) {
                return; // heard after stop(): nobody is known here any more
            }
            events++;
            Map<String, Set<String>> remote = table.remote();
            boolean changed;
            if (present) {
                changed = remote.computeIfAbsent(node, k -> new HashSet<>()).add(userId);
            } else {
                Set<String> users = remote.get(node);
                changed = users != null && users.remove(userId);
                if (users != null && users.isEmpty()) {
                    remote.remove(node);
                }
            }
            if (changed) {
                queue(present, userId, node, false);
            }
        }
        table.notifyListeners();
    }

    private void messageArrived(String json) {
        Map<?, ?> message = PresenceStore.parse(json);
        if (message == null || !(message.get("userId") instanceof String userId) || !(message.get("channel") instanceof String channel)) {
            return;
        }
        List<ServerSession> sessions;
        synchronized (this) {
            sessions = table.sessions(userId);
        }
        for (ServerSession s : sessions) {
            s.deliver(null, channel, message.get("data"), Promise.noop());
        }
    }

    /** Refreshes this node's presence set and re-reads everybody's: expired nodes leave. */
    private void heartbeat() {
        if (!cluster.isConnected()) {
            return;
        }
        try {
            store.refresh(this::localUserIds);
            long before;
            synchronized (this) {
                before = events;
            }
            Map<String, Set<String>> snapshot = store.readOthers();
            synchronized (this) {
                if (events != before || !started) {
                    return; // news arrived meanwhile: the next heartbeat reads again
                }
                Map<String, Set<String>> remote = table.remote();
                for (var entry : remote.entrySet()) {
                    Set<String> now = snapshot.getOrDefault(entry.getKey(), Set.of());
                    for (String userId : entry.getValue()) {
                        if (!now.contains(userId)) {
                            queue(false, userId, entry.getKey(), false);
                        }
                    }
                }
                for (var entry : snapshot.entrySet()) {
                    Set<String> was = remote.getOrDefault(entry.getKey(), Set.of());
                    for (String userId : entry.getValue()) {
                        if (!was.contains(userId)) {
                            queue(true, userId, entry.getKey(), false);
                        }
                    }
                }
                remote.clear();
                snapshot.forEach((node, set) -> {
                    if (!set.isEmpty()) {
                        remote.put(node, set);
                    }
                });
            }
            table.notifyListeners();
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        } catch (Exception x) {
            LOGGER.debug("Presence heartbeat failed: {}", x.toString());
        }
    }

    /** Under the lock, with the change: see the class comment. */
    private void queue(boolean added, String userId, String node, boolean isLocal) {
        table.queue(this, added, userId, node, isLocal);
    }

    @Override
    public String toString() {
        return "RedisSeti[" + getId() + "]";
    }
}
