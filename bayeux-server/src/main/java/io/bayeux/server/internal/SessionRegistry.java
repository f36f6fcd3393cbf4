package io.bayeux.server.internal;

import java.security.SecureRandom;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;

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
    /**
     * Guarded by itself: why recently removed sessions went, with the browser each belonged to,
     * for their clients' next message; the oldest forgotten first.
     */
    private final Map<String, Removal> reasons = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Removal> eldest) {
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
     * Remembers why a session is removed, and the browser it belonged to ({@link BrowserBinding#of},
     * or null), until its client's next message asks; a reason remembered already for it stays.
     *
     * @return whether this one was remembered
     */
    boolean rememberReason(String id, String error, Object browser) {
        synchronized (reasons) {
            return reasons.putIfAbsent(id, new Removal(error, browser)) == null;
        }
    }

    /** Forgets the reason {@link #rememberReason} remembered, if it is still that one. */
    void forgetReason(String id, String error) {
        synchronized (reasons) {
            Removal removal = reasons.get(id);
            if (removal != null && removal.error.equals(error)) {
                reasons.remove(id);
            }
        }
    }

    /**
     * @param fromItsBrowser whether the message comes from the browser a removal names (given
     *                       its binding): the reason is told only there, and kept for it otherwise
     * @return the error a removed session left for its client, once, or null
     */
    String takeReason(String id, Predicate<Object> fromItsBrowser) {
        if (id == null) {
            return null;
        }
        synchronized (reasons) {
            Removal removal = reasons.isEmpty() ? null : reasons.get(id);
            if (removal == null || !fromItsBrowser.test(removal.browser)) {
                return null;
            }
            reasons.remove(id);
            return removal.error;
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

    /** Why a session went, and the browser it belonged to. */
    private record Removal(String error, Object browser) {
    }
}
