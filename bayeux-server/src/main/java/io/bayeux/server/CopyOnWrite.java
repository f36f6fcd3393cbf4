package io.bayeux.server;

import java.util.ArrayList;
import java.util.List;

/**
 * Copy-on-write lists of listeners kept in {@code volatile} fields that start as the shared
 * empty list: a session or connection that never gets a listener of a kind pays nothing for
 * it. Writers hold the owner's lock; readers iterate whatever list they read, unlocked.
 */
final class CopyOnWrite {
    private CopyOnWrite() {
    }

    /** {@code list} with {@code item} added at the end. */
    static <T> List<T> plus(List<T> list, T item) {
        List<T> copy = new ArrayList<>(list.size() + 1);
        copy.addAll(list);
        copy.add(item);
        return List.copyOf(copy);
    }

    /** {@code list} without the first occurrence of {@code item}, or {@code list} itself when it has none. */
    static <T> List<T> minus(List<T> list, Object item) {
        int index = list.indexOf(item);
        if (index < 0) {
            return list;
        }
        if (list.size() == 1) {
            return List.of();
        }
        List<T> copy = new ArrayList<>(list);
        copy.remove(index);
        return List.copyOf(copy);
    }
}
