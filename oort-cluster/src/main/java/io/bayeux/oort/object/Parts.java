package io.bayeux.oort.object;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Each node's part of one {@link OortObject}, by the node's URL, and since when each owner has
 * been seen not joined (for the sweep that removes the parts of nodes gone for a failure
 * timeout). Not thread-safe: guarded by the lock of its object.
 *
 * @param <T> the type of the value
 */
final class Parts<T> {
    private final String localURL;
    private final Map<String, Part<T>> byURL = new HashMap<>();

    Parts(String localURL) {
        this.localURL = localURL;
    }

    /** The part of the node at {@code url}, or null. */
    Part<T> get(String url) {
        return byURL.get(url);
    }

    /** Holds {@code info} as the part of its node (a new one: not seen unjoined). */
    void put(String url, Info<T> info) {
        byURL.put(url, new Part<>(info));
    }

    /** Removes the part of the node at {@code url}; returns it, or null. */
    Part<T> remove(String url) {
        return byURL.remove(url);
    }

    void clear() {
        byURL.clear();
    }

    /** Every part's info, this node's first. */
    List<Info<T>> infos() {
        List<Info<T>> infos = new ArrayList<>(byURL.size());
        Part<T> local = byURL.get(localURL);
        if (local != null) {
            infos.add(local.info);
        }
        for (Map.Entry<String, Part<T>> entry : byURL.entrySet()) {
            if (!entry.getKey().equals(localURL)) {
                infos.add(entry.getValue().info);
            }
        }
        return infos;
    }

    /**
     * Notes which owners are not joined (not in {@code known}) at {@code now} (System.nanoTime());
     * returns the URLs of those seen not joined for more than {@code limitNanos}.
     */
    List<String> stale(Set<String> known, long now, long limitNanos) {
        List<String> stale = new ArrayList<>();
        for (Map.Entry<String, Part<T>> entry : byURL.entrySet()) {
            Part<T> part = entry.getValue();
            if (entry.getKey().equals(localURL) || known.contains(entry.getKey())) {
                part.unknownSince = 0;
            } else if (part.unknownSince == 0) {
                part.unknownSince = now;
            } else if (now - part.unknownSince > limitNanos) {
                stale.add(entry.getKey());
            }
        }
        return stale;
    }

    /** One node's part: its latest info, replaced on each change. */
    static final class Part<T> {
        Info<T> info;
        /**
         * When the owner was first seen not joined (System.nanoTime()); 0 while it is (a time of
         * exactly 0 reads as joined: the wait then starts at the next sweep).
         */
        long unknownSince;

        Part(Info<T> info) {
            this.info = info;
        }
    }
}
