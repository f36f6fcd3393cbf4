package io.bayeux.server.internal;

import java.util.ArrayList;
import java.util.Arrays;
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

    /** {@code array} with {@code item} added at the end, or {@code array} itself when it holds that very item. */
    static <T> T[] plusOnce(T[] array, T item) {
        for (T present : array) {
            if (present == item) {
                return array;
            }
        }
        T[] more = Arrays.copyOf(array, array.length + 1);
        more[array.length] = item;
        return more;
    }

    /** {@code array} without {@code item} (that very one), {@code empty} when nothing is left, or {@code array} itself when it lacks it. */
    static <T> T[] minus(T[] array, T item, T[] empty) {
        for (int i = 0; i < array.length; i++) {
            if (array[i] == item) {
                if (array.length == 1) {
                    return empty;
                }
                T[] fewer = Arrays.copyOf(array, array.length - 1);
                System.arraycopy(array, i + 1, fewer, i, array.length - i - 1);
                return fewer;
            }
        }
        return array;
    }
}
