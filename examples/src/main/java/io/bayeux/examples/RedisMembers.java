package io.bayeux.examples;

import io.bayeux.api.ChannelId;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.cluster.redis.RedisSeti;

import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The demo's room members across a cluster on Redis, as {@link ClusterMembers} on Oort's Seti:
 * joining a room through {@code /service/members} also associates the session with the
 * {@link RedisSeti} user {@code <room>/<name>}, so every node knows who is in each room on any
 * node; every member list sent on {@code /members/<room>} carries the names from the whole
 * cluster.
 */
public final class RedisMembers implements BayeuxServer.Extension, RedisSeti.PresenceListener {
    private final BayeuxServer bayeux;
    private final RedisSeti seti;

    private RedisMembers(BayeuxServer bayeux, RedisSeti seti) {
        this.bayeux = bayeux;
        this.seti = seti;
    }

    /** Hooks the cluster-wide member lists into a node's server. */
    public static RedisMembers install(BayeuxServer bayeux, RedisSeti seti) {
        RedisMembers members = new RedisMembers(bayeux, seti);
        bayeux.addExtension(members);
        seti.addPresenceListener(members);
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
            seti.disassociate(room + "/" + user, from);
        } else {
            seti.associate(room + "/" + user, from);
        }
        return true;
    }

    /** The sorted names in a room, on every node. */
    public List<String> names(String room) {
        TreeSet<String> names = new TreeSet<>();
        String prefix = room + "/";
        for (String userId : seti.getUserIds()) {
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
            // The data is filled in by send(), with the names of the whole cluster.
            bayeux.createChannelIfAbsent("/members/" + room).getReference().publish(null, List.of());
        }
    }
}
