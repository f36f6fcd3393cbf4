package io.bayeux.server;

import java.security.SecureRandom;
import java.util.Collection;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The sessions of one server by id. Ids carry 160 random bits from this registry's own
 * {@link SecureRandom}, so they cannot be guessed from one another.
 */
final class SessionRegistry {
    private static final int ID_BYTES = 20;

    private final SecureRandom random = new SecureRandom();
    private final Map<String, ServerSessionImpl> sessions = new ConcurrentHashMap<>();

    String newId() {
        byte[] bytes = new byte[ID_BYTES];
        random.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    ServerSessionImpl get(String id) {
        return id == null ? null : sessions.get(id);
    }

    void add(ServerSessionImpl session) {
        sessions.put(session.getId(), session);
    }

    boolean remove(ServerSessionImpl session) {
        return sessions.remove(session.getId(), session);
    }

    Collection<ServerSessionImpl> all() {
        return sessions.values();
    }

    int size() {
        return sessions.size();
    }
}
