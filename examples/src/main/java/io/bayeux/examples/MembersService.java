package io.bayeux.examples;

import io.bayeux.annotation.Configure;
import io.bayeux.annotation.Listener;
import io.bayeux.annotation.Service;
import io.bayeux.api.ChannelId;
import io.bayeux.api.Promise;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ConfigurableServerChannel;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import jakarta.inject.Inject;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code /service/members}: a client joins or leaves a room with
 * {@code {"room": "/chat/lobby", "user": "alice", "action": "join"}}; the room's member list
 * (sorted names) is broadcast to {@code /members/lobby} and sent to the joiner. A session that
 * goes away leaves every room it joined.
 */
@Service("members")
public final class MembersService {
    public static final String CHANNEL = "/service/members";

    @Inject
    private BayeuxServer bayeux;
    /** Room name to (session id to user name); each inner map is guarded by itself. */
    private final Map<String, Map<String, String>> rooms = new ConcurrentHashMap<>();

    @Configure("/members/**")
    public void configureMembers(ConfigurableServerChannel channel) {
        channel.setPersistent(true);
    }

    @Listener(CHANNEL)
    public boolean members(ServerSession from, ServerMessage.Mutable message) {
        Map<String, Object> data = message.getDataAsMap();
        if (from == null || data == null || !(data.get("room") instanceof String roomChannel)
                || !ChannelId.isValid(roomChannel) || !roomChannel.startsWith("/chat/") || ChannelId.of(roomChannel).depth() != 2) {
            return false;
        }
        String room = roomChannel.substring("/chat/".length());
        String action = data.get("action") instanceof String a ? a : "join";
        if ("leave".equals(action)) {
            leave(room, from.getId());
        } else {
            String user = data.get("user") instanceof String u && !u.isBlank() ? u.strip() : "anonymous";
            Map<String, String> members = rooms.computeIfAbsent(room, r -> new TreeMap<>());
            boolean first;
            synchronized (members) {
                first = members.put(from.getId(), user) == null;
            }
            if (first) {
                from.addListener((ServerSession.RemoveListener) (session, m, timeout) -> leave(room, session.getId()));
            }
            // Lists of a room go out one at a time (see ClusterMembers): the last a member gets is the latest.
            ServerChannel channel = membersChannel(room);
            synchronized (channel) {
                from.deliver(null, channel.getId(), names(room), Promise.noop());
            }
            broadcast(room);
        }
        return true;
    }

    private void leave(String room, String sessionId) {
        Map<String, String> members = rooms.get(room);
        if (members != null) {
            boolean removed;
            synchronized (members) {
                removed = members.remove(sessionId) != null;
            }
            if (removed) {
                broadcast(room);
            }
        }
    }

    /** The sorted names of the members of a room. */
    public List<String> names(String room) {
        Map<String, String> members = rooms.get(room);
        if (members == null) {
            return List.of();
        }
        synchronized (members) {
            return members.values().stream().sorted().toList();
        }
    }

    private void broadcast(String room) {
        ServerChannel channel = membersChannel(room);
        synchronized (channel) {
            channel.publish(null, names(room));
        }
    }

    /**
     * The channel of a room's member lists (persistent: the same object while the server runs).
     * Whoever sends a list holds its monitor from making the list to queueing it, so that lists
     * made on different threads reach each member in the order they were made.
     */
    ServerChannel membersChannel(String room) {
        return bayeux.createChannelIfAbsent("/members/" + room).getReference();
    }
}
