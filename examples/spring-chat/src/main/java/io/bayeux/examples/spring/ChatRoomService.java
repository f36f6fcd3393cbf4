package io.bayeux.examples.spring;

import io.bayeux.annotation.Listener;
import io.bayeux.annotation.RemoteCall;
import io.bayeux.annotation.Service;
import io.bayeux.annotation.Session;
import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Chat rooms on {@code /chat/<room>}: a client joins with the remote call {@code chat/join}
 * ({@code {"room": "lobby", "user": "alice"}}), which answers with the room's members and tells
 * the room's member list on {@code /members/<room>}; a session that goes away leaves its rooms.
 * A message must carry a {@code text} of at most {@code chat.max-length} characters, else it is refused.
 */
@Component
@Service("chat")
public class ChatRoomService {
    private final int maxLength;
    /** Room to (session id to user name); each inner map is guarded by itself. */
    private final Map<String, Map<String, String>> rooms = new ConcurrentHashMap<>();
    @Session
    private LocalSession session;

    public ChatRoomService(@Value("${chat.max-length:500}") int maxLength) {
        this.maxLength = maxLength;
    }

    @Listener("/chat/*")
    public boolean check(ServerSession from, ServerMessage.Mutable message) {
        Map<String, Object> data = message.getDataAsMap();
        return data != null && data.get("text") instanceof String text && !text.isBlank() && text.length() <= maxLength;
    }

    @RemoteCall("chat/join")
    public void join(RemoteCall.Caller caller, Object data) {
        if (!(data instanceof Map<?, ?> join && join.get("room") instanceof String room && room.matches("[A-Za-z0-9_-]{1,40}")
                && join.get("user") instanceof String user && !user.isBlank())) {
            caller.failure("join needs a room (letters, digits, - and _) and a user");
            return;
        }
        ServerSession from = caller.getServerSession();
        Map<String, String> members = rooms.computeIfAbsent(room, r -> new TreeMap<>());
        synchronized (members) {
            if (members.put(from.getId(), user.strip()) == null) {
                from.addListener((ServerSession.RemoveListener) (gone, message, timeout) -> leave(room, gone.getId()));
            }
        }
        caller.result(announce(room));
    }

    private void leave(String room, String sessionId) {
        Map<String, String> members = rooms.get(room);
        boolean removed;
        synchronized (members) {
            removed = members.remove(sessionId) != null;
        }
        if (removed) {
            announce(room);
        }
    }

    /** Publishes the room's member list, and returns it. */
    private List<String> announce(String room) {
        List<String> names;
        Map<String, String> members = rooms.get(room);
        synchronized (members) {
            names = members.values().stream().sorted().toList();
        }
        session.getChannel("/members/" + room).publish(names);
        return names;
    }
}
