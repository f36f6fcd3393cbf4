package io.bayeux.oort.seti;

import io.bayeux.api.server.ServerSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What every {@link Presence} keeps, whatever carries it between nodes ({@link Seti} on an
 * Oort mesh, cluster-redis' {@code RedisSeti} on Redis): the local sessions of each user
 * associated on this node, the users present on each other node, and the presence listeners.
 * For the implementations of {@link Presence}, not for applications.
 *
 * <p>Not thread-safe on its own: the owner guards every call with its lock, except the
 * listener methods ({@link #addListener}, {@link #removeListener}, {@link #fire}), which take
 * no lock and are called without the owner's, so that listeners never run under it.
 */
public final class PresenceTable {
    private static final Logger LOG = LoggerFactory.getLogger(PresenceTable.class);

    /** The local sessions of each locally associated user; never an empty set. */
    private final Map<String, Set<ServerSession>> local = new HashMap<>();
    /** The users present on each other node, by the node's name. */
    private final Map<String, Set<String>> remote = new HashMap<>();
    private final List<Presence.PresenceListener> listeners = new CopyOnWriteArrayList<>();

    /** The users present on each other node, by its name, for the owner's protocol to update. */
    public Map<String, Set<String>> remote() {
        return remote;
    }

    /** The locally associated users, a live view. */
    public Set<String> localUserIds() {
        return local.keySet();
    }

    /** Associates {@code userId} with a local session; returns whether the association is new. */
    public boolean associate(String userId, ServerSession session) {
        return local.computeIfAbsent(userId, k -> new LinkedHashSet<>()).add(session);
    }

    /** Ends one association; returns whether it existed. The user's last one makes it unassociated here. */
    public boolean disassociate(String userId, ServerSession session) {
        Set<ServerSession> sessions = local.get(userId);
        boolean removed = sessions != null && sessions.remove(session);
        if (removed && sessions.isEmpty()) {
            local.remove(userId);
        }
        return removed;
    }

    /** Ends every local association of {@code userId}; returns its sessions, or null if it had none. */
    public Set<ServerSession> disassociate(String userId) {
        return local.remove(userId);
    }

    /** Ends every local association; returns the users that had one. */
    public List<String> disassociateAll() {
        List<String> users = new ArrayList<>(local.keySet());
        local.clear();
        return users;
    }

    public boolean isAssociated(String userId) {
        return local.containsKey(userId);
    }

    public int getAssociationCount(String userId) {
        Set<ServerSession> sessions = local.get(userId);
        return sessions == null ? 0 : sessions.size();
    }

    /** The local sessions of {@code userId}, a copy. */
    public List<ServerSession> sessions(String userId) {
        Set<ServerSession> here = local.get(userId);
        return here == null ? List.of() : List.copyOf(here);
    }

    /** Whether {@code userId} is present on any node, this one included. */
    public boolean isPresent(String userId) {
        if (local.containsKey(userId)) {
            return true;
        }
        for (Set<String> users : remote.values()) {
            if (users.contains(userId)) {
                return true;
            }
        }
        return false;
    }

    public Set<String> getAssociatedUserIds() {
        return Set.copyOf(local.keySet());
    }

    /** The users present anywhere. */
    public Set<String> getUserIds() {
        Set<String> all = new HashSet<>(local.keySet());
        remote.values().forEach(all::addAll);
        return Set.copyOf(all);
    }

    /** The other nodes where {@code userId} is present. */
    public List<String> remoteNodes(String userId) {
        List<String> nodes = new ArrayList<>();
        remote.forEach((node, users) -> {
            if (users.contains(userId)) {
                nodes.add(node);
            }
        });
        return nodes;
    }

    /** The nodes where {@code userId} is present, sorted, this one ({@code self}) included. */
    public Set<String> nodes(String self, String userId) {
        Set<String> nodes = new TreeSet<>();
        if (local.containsKey(userId)) {
            nodes.add(self);
        }
        nodes.addAll(remoteNodes(userId));
        return nodes;
    }

    public void addListener(Presence.PresenceListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    public void removeListener(Presence.PresenceListener listener) {
        listeners.remove(listener);
    }

    /** Tells every listener, in turn; one that throws is logged and skipped. Call it without the owner's lock. */
    public void fire(Presence presence, boolean added, String userId, String node, boolean isLocal) {
        Presence.PresenceListener.Event event = new Presence.PresenceListener.Event(presence, userId, node, isLocal);
        for (Presence.PresenceListener listener : listeners) {
            try {
                if (added) {
                    listener.presenceAdded(event);
                } else {
                    listener.presenceRemoved(event);
                }
            } catch (RuntimeException x) {
                LOG.warn("PresenceListener {} failed on {}", listener, event, x);
            }
        }
    }

    /** What ends {@code userId}'s association with a session when the session ends: add it to the session. */
    public static ServerSession.RemoveListener disassociator(Presence presence, String userId) {
        return (session, message, timeout) -> presence.disassociate(userId, session);
    }
}
