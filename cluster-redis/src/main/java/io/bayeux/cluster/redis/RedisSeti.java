package io.bayeux.cluster.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bayeux.api.Promise;
import io.bayeux.api.server.ServerSession;
import io.bayeux.presence.Presence;
import io.bayeux.presence.PresenceTable;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.async.RedisAsyncCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
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
public class RedisSeti implements Presence {
    private static final Logger LOGGER = LoggerFactory.getLogger(RedisSeti.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final RedisCluster cluster;
    /** Guarded by this (but for telling its listeners): the users here and on each other node, by its id. */
    private final PresenceTable table = new PresenceTable(this);
    private Duration ttl = Duration.ofSeconds(10);
    private ScheduledExecutorService scheduler;
    private long events;
    private boolean started;

    public RedisSeti(RedisCluster cluster) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
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

    /** How long a node's users outlive its last heartbeat (default 10 s; heartbeat every third of it); set before start. */
    public void setPresenceTtl(Duration ttl) {
        if (ttl.toMillis() < 300) {
            throw new IllegalArgumentException("presence TTL under 300 ms");
        }
        this.ttl = ttl;
    }

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
        cluster.subscribeDirect(presenceChannel(), this::presenceArrived);
        cluster.subscribeDirect(setiChannel(getId()), this::messageArrived);
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
        cluster.unsubscribeDirect(presenceChannel());
        cluster.unsubscribeDirect(setiChannel(getId()));
        if (cluster.isConnected()) {
            RedisAsyncCommands<String, String> commands = cluster.commands();
            commands.del(presenceKey(getId()));
            for (String userId : users) {
                commands.publish(presenceChannel(), event(userId, false));
            }
        }
        synchronized (this) {
            // The other nodes' users are no longer known here: the listeners hear that too.
            Map<String, Set<String>> remote = table.remote();
            remote.forEach((node, ids) -> ids.forEach(userId -> queue(false, userId, node, false)));
            remote.clear();
        }
        table.notifyListeners();
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

    /** Sends {@code data} on {@code channel} to every session of {@code userId}, on every node where it is present. */
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
            if (nodes.isEmpty()) {
                continue;
            }
            Map<String, Object> message = new LinkedHashMap<>();
            message.put("userId", userId);
            message.put("channel", channel);
            message.put("data", data);
            String json = json(message);
            if (json == null) {
                continue;
            }
            for (String node : nodes) {
                send(setiChannel(node), json);
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

    private String presenceChannel() {
        return cluster.getPrefix() + "presence";
    }

    private String presenceKey(String node) {
        return cluster.getPrefix() + "presence:" + node;
    }

    private String setiChannel(String node) {
        return cluster.getPrefix() + "seti:" + node;
    }

    /** Under the lock: queues the commands on the Redis connection, waiting for no answer. */
    private void announce(String userId, boolean present) {
        if (!isStarted()) {
            return;
        }
        RedisAsyncCommands<String, String> commands = cluster.commands();
        try {
            String key = presenceKey(getId());
            if (present) {
                commands.sadd(key, userId);
                commands.pexpire(key, ttl.toMillis());
            } else {
                commands.srem(key, userId);
            }
            send(presenceChannel(), event(userId, present));
        } catch (RuntimeException x) {
            // Redis away and the buffer full: the heartbeat publishes the users again.
            LOGGER.debug("Presence of {} not announced yet: {}", userId, x.toString());
        }
    }

    private void send(String redisChannel, String json) {
        try {
            cluster.commands().publish(redisChannel, json).whenComplete((n, failure) -> {
                if (failure != null) {
                    cluster.countDropped();
                }
            });
        } catch (RuntimeException x) {
            cluster.countDropped();
        }
    }

    private String event(String userId, boolean present) {
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("node", getId());
        event.put("userId", userId);
        event.put("present", present);
        return json(event);
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException x) {
            LOGGER.warn("Not encodable: {}", x.toString());
            return null;
        }
    }

    private synchronized boolean isStarted() {
        return started;
    }

    private void presenceArrived(String json) {
        Map<?, ?> event;
        try {
            event = JSON.readValue(json, Map.class);
        } catch (JsonProcessingException x) {
            return;
        }
        if (!(event.get("node") instanceof String node) || !(event.get("userId") instanceof String userId) || getId().equals(node)) {
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
        Map<?, ?> message;
        try {
            message = JSON.readValue(json, Map.class);
        } catch (JsonProcessingException x) {
            return;
        }
        if (!(message.get("userId") instanceof String userId) || !(message.get("channel") instanceof String channel)) {
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
            RedisAsyncCommands<String, String> commands = cluster.commands();
            String own = presenceKey(getId());
            String[] users;
            synchronized (this) {
                users = table.localUserIds().toArray(String[]::new);
            }
            if (users.length > 0) {
                commands.sadd(own, users);
                commands.pexpire(own, ttl.toMillis()).get(5, TimeUnit.SECONDS);
            }
            // A removal lost while Redis was away is made good here.
            Set<String> stale = new HashSet<>(commands.smembers(own).get(5, TimeUnit.SECONDS));
            synchronized (this) {
                stale.removeAll(table.localUserIds());
            }
            if (!stale.isEmpty()) {
                commands.srem(own, stale.toArray(String[]::new)).get(5, TimeUnit.SECONDS);
            }
            long before;
            synchronized (this) {
                before = events;
            }
            Map<String, Set<String>> snapshot = new HashMap<>();
            String prefix = presenceKey("");
            ScanCursor cursor = ScanCursor.INITIAL;
            int rounds = 0;
            do {
                KeyScanCursor<String> page = commands.scan(cursor, ScanArgs.Builder.matches(globEscape(prefix) + "*").limit(500))
                        .get(5, TimeUnit.SECONDS);
                for (String key : page.getKeys()) {
                    String node = key.substring(prefix.length());
                    if (!node.equals(getId())) {
                        snapshot.put(node, new HashSet<>(commands.smembers(key).get(5, TimeUnit.SECONDS)));
                    }
                }
                cursor = page;
            } while (!cursor.isFinished() && ++rounds < 10_000);
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

    private static String globEscape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                b.append('\\');
            }
            b.append(c);
        }
        return b.toString();
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
