package io.bayeux.examples;

import io.bayeux.api.ChannelId;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.presence.Presence;

import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The demo's room members across a cluster, on {@link Presence}, whatever carries it (Oort's
 * Seti for {@code --oort-*}, RedisSeti for {@code --engine redis://}): joining a room through
 * {@code /service/members} also associates the session with the user {@code <room>/<name>},
 * so every node knows who is in each room on any node; every member list sent on
 * {@code /members/<room>} (by {@link MembersService}, or here when someone arrives or leaves on
 * another node) carries the names from the whole cluster.
 */
public final class ClusterMembers implements BayeuxServer.Extension, Presence.PresenceListener {
    private final BayeuxServer bayeux;
    private final Presence presence;

    private ClusterMembers(BayeuxServer bayeux, Presence presence) {
        this.bayeux = bayeux;
        this.presence = presence;
    }

    /** Hooks the cluster-wide member lists into a node's server. */
    public static ClusterMembers install(BayeuxServer bayeux, Presence presence) {
        ClusterMembers members = new ClusterMembers(bayeux, presence);
        bayeux.addExtension(members);
        presence.addPresenceListener(members);
        bayeux.createChannelIfAbsent(MembersService.CHANNEL).getReference()
                .addListener((ServerChannel.MessageListener) (from, channel, message) -> members.joinOrLeave(from, message));
        return members;
    }

    private boolean joinOrLeave(ServerSession from, ServerMessage message) {
        Map<String, Object> data = message.getDataAsMap();
        if (from == null || data == null || !(data.get("room") instanceof String roomChannel)
                || !ChannelId.isValid(roomChannel) || !roomChannel.startsWith("/chat/") || ChannelId.of(roomChannel).depth() != 2) {
            return true;
        }
        String room = roomChannel.substring("/chat/".length());
        String user = data.get("user") instanceof String u && !u.isBlank() ? u.strip() : "anonymous";
        if ("leave".equals(data.get("action"))) {
            presence.disassociate(room + "/" + user, from);
        } else {
            presence.associate(room + "/" + user, from);
        }
        return true;
    }

    /** The sorted names in a room, on every node. */
    public List<String> names(String room) {
        TreeSet<String> names = new TreeSet<>();
        String prefix = room + "/";
        for (String userId : presence.getUserIds()) {
            if (userId.startsWith(prefix)) {
                names.add(userId.substring(prefix.length()));
            }
        }
        return List.copyOf(names);
    }

    @Override
    public boolean send(ServerSession from, ServerSession to, ServerMessage.Mutable message) {
        String channel = message.getChannel();
        if (channel != null && channel.startsWith("/members/") && ChannelId.of(channel).depth() == 2) {
            message.setData(names(channel.substring("/members/".length())));
        }
        return true;
    }

    @Override
    public void presenceAdded(Event event) {
        changed(event.userId());
    }

    @Override
    public void presenceRemoved(Event event) {
        changed(event.userId());
    }

    private void changed(String userId) {
        int slash = userId.indexOf('/');
        if (slash > 0) {
            String room = userId.substring(0, slash);
            // The data is filled in by send(), with the names of the whole cluster; one list at a
            // time (see MembersService#membersChannel), so that the last a member gets is the latest.
            ServerChannel channel = bayeux.createChannelIfAbsent("/members/" + room).getReference();
            synchronized (channel) {
                channel.publish(null, List.of());
            }
        }
    }
}
