package io.bayeux.server.internal;

import java.security.SecureRandom;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The sessions of one server by id. Ids carry 160 random bits from this registry's own
 * {@link SecureRandom}, so they cannot be guessed from one another.
 */
final class SessionRegistry {
    private static final int ID_BYTES = 20;
    /** How many removal reasons are kept for clients that have not come back yet. */
    static final int MAX_REASONS = 1024;

    private final SecureRandom random = new SecureRandom();
    private final ShrinkingMap<String, ServerSessionImpl> sessions = new ShrinkingMap<>();
    /** Guarded by itself: why recently removed sessions went, for their clients' next message; the oldest forgotten first. */
    private final Map<String, String> reasons = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > MAX_REASONS;
        }
    };

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

    /**
     * Remembers why a session is removed, until its client's next message asks; a reason
     * remembered already for it stays.
     *
     * @return whether this one was remembered
     */
    boolean rememberReason(String id, String error) {
        synchronized (reasons) {
            return reasons.putIfAbsent(id, error) == null;
        }
    }

    /** Forgets the reason {@link #rememberReason} remembered, if it is still that one. */
    void forgetReason(String id, String error) {
        synchronized (reasons) {
            reasons.remove(id, error);
        }
    }

    /** @return the error a removed session left for its client, once, or null */
    String takeReason(String id) {
        if (id == null) {
            return null;
        }
        synchronized (reasons) {
            return reasons.isEmpty() ? null : reasons.remove(id);
        }
    }

    Collection<ServerSessionImpl> all() {
        return sessions.values();
    }

    int size() {
        return sessions.size();
    }

    /** Gives back the table the registry grew to once most sessions are gone ({@link ShrinkingMap#compact}). */
    boolean compact() {
        return sessions.compact();
    }

    /** The most sessions since the table was last given back. */
    int peak() {
        return sessions.peak();
    }
}
