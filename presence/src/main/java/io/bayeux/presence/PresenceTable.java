package io.bayeux.presence;

import io.bayeux.api.server.ServerSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
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
 * What every {@link Presence} keeps, whatever carries it between nodes (oort-cluster's {@code Seti} on an
 * Oort mesh, cluster-redis' {@code RedisSeti} on Redis): the local sessions of each user
 * associated on this node, the users present on each other node, and the presence listeners.
 * For the implementations of {@link Presence}, not for applications.
 *
 * <p>Not thread-safe on its own: the owner guards every call with its lock, {@link #queue}
 * included, except {@link #addListener}, {@link #removeListener} and {@link #notifyListeners},
 * which are called without the owner's lock, so that listeners never run under it.
 *
 * <p>The listeners are told in the order the changes were applied, one change at a time, even
 * when changes are applied on several threads at once (an association on one application thread
 * and its end on another; a presence brought by one thread and swept, or read again from the
 * cluster, on another): the owner queues the telling of a change under its lock, with the change
 * ({@link #queue}), then calls {@link #notifyListeners} once the lock is released, which tells
 * them on the calling thread unless another thread is telling them already (that thread then
 * tells of this change too, right after the earlier ones). A change with no other under way is
 * thus told before the owner's method that made it returns; one made by a listener, after that
 * listener returns. {@link #notifyListeners} called with the owner's lock held tells nothing: the
 * owner's method that holds the lock calls it again once it has released it.
 */
public final class PresenceTable {
    private static final Logger LOG = LoggerFactory.getLogger(PresenceTable.class);

    /** The local sessions of each locally associated user; never an empty set. */
    private final Map<String, Set<ServerSession>> local = new HashMap<>();
    /** The users present on each other node, by the node's name. */
    private final Map<String, Set<String>> remote = new HashMap<>();
    private final List<Presence.PresenceListener> listeners = new CopyOnWriteArrayList<>();
    /** The owner's lock: listeners are never told while the calling thread holds it. */
    private final Object lock;
    /** Guarded by itself: the changes applied and not told yet, in the order they were applied. */
    private final ArrayDeque<Change> changes = new ArrayDeque<>();
    /** Guarded by {@link #changes}: whether a thread is telling the listeners (see {@link #notifyListeners}). */
    private boolean notifying;

    /** A user's arrival on a node ({@code added}) or departure from it, as the listeners are told. */
    private record Change(boolean added, Presence.PresenceListener.Event event) {
    }

    /** A table for an owner that guards it with {@code lock}'s monitor. */
    public PresenceTable(Object lock) {
        this.lock = Objects.requireNonNull(lock, "lock");
    }

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

    /**
     * Under the owner's lock, with the change: queues telling the listeners that {@code userId}
     * arrived on {@code node} ({@code added}) or left it, to be told by {@link #notifyListeners}
     * after the changes queued before.
     */
    public void queue(Presence presence, boolean added, String userId, String node, boolean isLocal) {
        assert Thread.holdsLock(lock) : "queued without the owner's lock: " + presence;
        Change change = new Change(added, new Presence.PresenceListener.Event(presence, userId, node, isLocal));
        synchronized (changes) {
            changes.add(change);
        }
    }

    /**
     * Without the owner's lock, after each change queued: tells the listeners of the changes
     * queued so far, in order, each listener in turn (one that throws is logged and skipped),
     * unless another thread is doing so already (it then tells of these too, after those before
     * them), or this thread is (a listener made the change: told once it returns), or this thread
     * holds the owner's lock (its method calls this again once it has released the lock: Seti,
     * publishing its own presence under its lock, may be handed on that thread a presence message
     * that another thread queued for Seti's session, and apply it there).
     */
    public void notifyListeners() {
        if (Thread.holdsLock(lock)) {
            return;
        }
        synchronized (changes) {
            if (notifying) {
                return;
            }
            notifying = true;
        }
        try {
            for (Change change = next(); change != null; change = next()) {
                tell(change);
            }
        } catch (Throwable x) {
            // A listener's Error: the changes still queued are told by the next call.
            synchronized (changes) {
                notifying = false;
            }
            throw x;
        }
    }

    /** The next change to tell, or null (and no thread telling any more) when none is left. */
    private Change next() {
        synchronized (changes) {
            Change change = changes.poll();
            if (change == null) {
                notifying = false;
            }
            return change;
        }
    }

    private void tell(Change change) {
        for (Presence.PresenceListener listener : listeners) {
            try {
                if (change.added()) {
                    listener.presenceAdded(change.event());
                } else {
                    listener.presenceRemoved(change.event());
                }
            } catch (RuntimeException x) {
                LOG.warn("PresenceListener {} failed on {}", listener, change.event(), x);
            }
        }
    }

    /** What ends {@code userId}'s association with a session when the session ends: add it to the session. */
    public static ServerSession.RemoveListener disassociator(Presence presence, String userId) {
        return (session, message, timeout) -> presence.disassociate(userId, session);
    }
}
