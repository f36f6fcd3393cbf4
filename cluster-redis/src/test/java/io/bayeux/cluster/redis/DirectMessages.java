package io.bayeux.cluster.redis;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.presence.Presence;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An application written once against {@link Presence}, knowing nothing of what carries it:
 * {@code /service/login {"name"}} makes the session that user; {@code /service/dm {"to",
 * "text"}} sends {@code {"from", "text"}} on {@code /dm} to every session of that user,
 * wherever it is; every presence change is logged as {@code +user@node} or {@code -user@node}
 * ({@code @local} for this node). Only {@code io.bayeux.api} and {@code Presence} are imported.
 */
final class DirectMessages implements Presence.PresenceListener {
    static final String LOGIN = "/service/login";
    static final String SEND = "/service/dm";
    static final String INBOX = "/dm";

    private final Presence presence;
    private final List<String> log = new CopyOnWriteArrayList<>();

    private DirectMessages(Presence presence) {
        this.presence = presence;
    }

    static DirectMessages install(BayeuxServer bayeux, Presence presence) {
        DirectMessages app = new DirectMessages(presence);
        presence.addPresenceListener(app);
        bayeux.createChannelIfAbsent(LOGIN).getReference()
                .addListener((ServerChannel.MessageListener) (from, channel, message) -> app.login(from, message));
        bayeux.createChannelIfAbsent(SEND).getReference()
                .addListener((ServerChannel.MessageListener) (from, channel, message) -> app.send(message));
        return app;
    }

    private boolean login(ServerSession from, ServerMessage message) {
        Map<String, Object> data = message.getDataAsMap();
        if (from == null || data == null || !(data.get("name") instanceof String name)) {
            return false;
        }
        presence.associate(name, from);
        return true;
    }

    private boolean send(ServerMessage message) {
        Map<String, Object> data = message.getDataAsMap();
        if (data == null || !(data.get("to") instanceof String to) || !(data.get("from") instanceof String from)) {
            return false;
        }
        presence.sendMessage(to, INBOX, Map.of("from", from, "text", String.valueOf(data.get("text"))));
        return true;
    }

    @Override
    public void presenceAdded(Event event) {
        log.add("+" + event.userId() + "@" + (event.local() ? "local" : event.node()));
    }

    @Override
    public void presenceRemoved(Event event) {
        log.add("-" + event.userId() + "@" + (event.local() ? "local" : event.node()));
    }

    /** The presence changes seen here, in order. */
    List<String> log() {
        return List.copyOf(log);
    }

    Presence presence() {
        return presence;
    }
}
