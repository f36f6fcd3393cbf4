package io.bayeux.server.internal;

import java.util.List;
import java.util.function.Consumer;

/**
 * A copy-on-write set of items in one field: null for none, the item itself for one, an
 * immutable list for more (a list of one costs an object more than its item). Writers hold
 * the owner's lock; readers use whatever value they read.
 */
final class One {
    private One() {
    }

    @SuppressWarnings("unchecked")
    static <T> List<T> list(Object field) {
        if (field == null) {
            return List.of();
        }
        return field instanceof List<?> list ? (List<T>) list : List.of((T) field);
    }

    @SuppressWarnings("unchecked")
    static <T> void forEach(Object field, Consumer<T> action) {
        if (field instanceof List<?> list) {
            for (Object item : list) {
                action.accept((T) item);
            }
        } else if (field != null) {
            action.accept((T) field);
        }
    }

    static boolean contains(Object field, Object item) {
        return field == item || field instanceof List<?> list && list.contains(item);
    }

    static <T> Object plus(Object field, T item) {
        return field == null ? item : CopyOnWrite.plus(list(field), item);
    }

    static Object minus(Object field, Object item) {
        if (field == item) {
            return null;
        }
        if (!(field instanceof List<?>)) {
            return field;
        }
        List<Object> rest = CopyOnWrite.minus(list(field), item);
        return rest.size() == 1 ? rest.get(0) : rest;
    }
}
