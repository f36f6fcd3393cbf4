package io.bayeux.presence;

import io.bayeux.api.Bayeux;
import io.bayeux.api.server.ServerSession;

import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Where users are in a cluster, whatever carries it: the application-facing side of
 * oort-cluster's {@code Seti} (a full Oort mesh) and of cluster-redis' {@code RedisSeti} (nodes sharing a
 * Redis or Valkey server). Code written against this interface runs unchanged on either; moving
 * from a mesh to Redis is a change of configuration (which one is built at start-up), not of
 * the application.
 *
 * <p>The names are CometD's {@code Seti} ones. A user is associated with one or more sessions on
 * one or more nodes; every node knows on which nodes each user is present (eventually: a change
 * on another node arrives asynchronously), and {@link #sendMessage} reaches the user's sessions
 * wherever they are. An association ends by itself when its session ends.
 *
 * <p>A node is named by a string, the same in {@link #getNode()}, {@link #getNodes(String)} and
 * {@link PresenceListener.Event#node()}: its Oort URL on a mesh, its node id on Redis.
 *
 * <p>Implementations are thread-safe and tell their listeners outside their locks.
 */
public interface Presence {
    /** This node's name: its Oort URL on a mesh, its node id on Redis. */
    String getNode();

    /**
     * Associates {@code userId} with a local session, until the session ends or
     * {@link #disassociate} is called. The first association of a user on this node makes it
     * present on this node in the whole cluster.
     *
     * @return whether the association is new
     */
    boolean associate(String userId, ServerSession session);

    /**
     * Ends one association; the last one of a user on this node makes it absent from this node.
     *
     * @return whether the association existed
     */
    boolean disassociate(String userId, ServerSession session);

    /** Ends every local association of {@code userId}; returns the sessions it had (empty when none). */
    Set<ServerSession> disassociate(String userId);

    /** Whether {@code userId} is associated with a session on this node. */
    boolean isAssociated(String userId);

    /** How many local sessions {@code userId} has on this node. */
    int getAssociationCount(String userId);

    /** Whether {@code userId} is present on any node of the cluster, this one included. */
    boolean isPresent(String userId);

    /** The users associated on this node. */
    Set<String> getAssociatedUserIds();

    /** The users present anywhere in the cluster, this node included. */
    Set<String> getUserIds();

    /** The names of the nodes where {@code userId} is present, this one included (sorted). */
    Set<String> getNodes(String userId);

    /**
     * Sends {@code data} on {@code channel} to every session of {@code userId}, on every node
     * where it is present: delivered directly to this node's sessions, through the cluster to
     * the others'. A user present nowhere known gets nothing (a mesh also tries every node, as
     * CometD does).
     */
    default void sendMessage(String userId, String channel, Object data) {
        sendMessage(List.of(userId), channel, data);
    }

    /** {@link #sendMessage(String, String, Object)} for each of {@code userIds}. */
    void sendMessage(Collection<String> userIds, String channel, Object data);

    void addPresenceListener(PresenceListener listener);

    void removePresenceListener(PresenceListener listener);

    /**
     * Told when a user becomes present on a node, or absent from it: once per user and node (a
     * user with two sessions on a node is one presence there). Told of one change at a time, in
     * the order the changes were applied, even when they were applied on several threads at
     * once: so a user's arrival on a node is always told before its departure from there. Called
     * without the presence's lock held, on the thread that caused the change (a local
     * association, or the cluster's thread that received the news), or on one telling of an
     * earlier change when there was one; it must not block.
     */
    interface PresenceListener extends Bayeux.BayeuxListener {
        default void presenceAdded(Event event) {
        }

        default void presenceRemoved(Event event) {
        }

        /**
         * A user on a node.
         *
         * @param presence the presence that tells
         * @param userId   the user
         * @param node     the node's name (as {@link Presence#getNode()} on that node)
         * @param local    whether the node is this one
         */
        record Event(Presence presence, String userId, String node, boolean local) {
            /** {@link #node()} under Seti's earlier name (on a mesh, the node's Oort URL). */
            public String oortURL() {
                return node;
            }
        }
    }
}
