package io.bayeux.server.filter;

import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerSession;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link DataFilter} that walks JSON-like data — maps, lists and object arrays, recursively —
 * and lets subclasses filter the leaves: strings ({@link #filterString}), numbers, booleans,
 * {@code null} and anything else. A subclass may also filter the keys of maps
 * ({@link #filterKey}).
 *
 * <p>Containers are never changed in place, since they may be shared: when something inside
 * a map, list or array changes, a new {@link LinkedHashMap}, {@link ArrayList} or
 * {@code Object[]} is built (preserving order); when nothing changes, the very same container
 * is returned, so unchanged data costs no copy downstream.
 *
 * <p>Nesting deeper than {@link #getMaxDepth()} (which also catches cyclic data) rejects the
 * message with an {@link AbortException}. Map keys that are not strings are kept as they are.
 * When filtering makes two keys of a map equal, the message is rejected, since one of the
 * values would be silently lost.
 *
 * <p>Subclasses must be thread-safe: one instance filters messages of many publishers.
 */
public abstract class JsonDataFilter implements DataFilter {
    /** The default maximum nesting depth: the JSON codec's default limit, with room to spare. */
    public static final int DEFAULT_MAX_DEPTH = 128;

    private final int maxDepth;

    /** A filter with the {@link #DEFAULT_MAX_DEPTH default} maximum nesting depth. */
    protected JsonDataFilter() {
        this(DEFAULT_MAX_DEPTH);
    }

    /**
     * @param maxDepth how deeply maps, lists and arrays may nest; the top-level value is at
     *        depth 0, so 0 allows no container at all
     * @throws IllegalArgumentException when {@code maxDepth} is negative
     */
    protected JsonDataFilter(int maxDepth) {
        if (maxDepth < 0) {
            throw new IllegalArgumentException("maxDepth must not be negative: " + maxDepth);
        }
        this.maxDepth = maxDepth;
    }

    /** How deeply maps, lists and arrays may nest. */
    public int getMaxDepth() {
        return maxDepth;
    }

    @Override
    public final Object filter(ServerSession from, ServerChannel channel, Object data) {
        return filterValue(data, 0);
    }

    private Object filterValue(Object value, int depth) {
        if (value == null) {
            return filterNull();
        }
        if (value instanceof String string) {
            return filterString(string);
        }
        if (value instanceof Number number) {
            return filterNumber(number);
        }
        if (value instanceof Boolean bool) {
            return filterBoolean(bool);
        }
        if (value instanceof Map<?, ?> || value instanceof List<?> || value instanceof Object[]) {
            if (depth >= maxDepth) {
                throw new AbortException("Data nested deeper than " + maxDepth + " levels");
            }
            if (value instanceof Map<?, ?> map) {
                return filterMap(map, depth + 1);
            }
            if (value instanceof List<?> list) {
                return filterList(list, depth + 1);
            }
            return filterArray((Object[]) value, depth + 1);
        }
        return filterOther(value);
    }

    private Object filterMap(Map<?, ?> map, int depth) {
        Map<Object, Object> result = new LinkedHashMap<>(Math.max(4, map.size() * 4 / 3 + 1));
        boolean changed = false;
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            Object key = entry.getKey();
            Object newKey = key instanceof String string ? filterKey(string) : key;
            Object value = entry.getValue();
            Object newValue = filterValue(value, depth);
            if (result.containsKey(newKey)) {
                throw new AbortException("Two keys of a map became '" + newKey + "' once filtered");
            }
            result.put(newKey, newValue);
            changed |= newKey != key || newValue != value;
        }
        return changed ? result : map;
    }

    private Object filterList(List<?> list, int depth) {
        List<Object> result = new ArrayList<>(list.size());
        boolean changed = false;
        for (Object value : list) {
            Object newValue = filterValue(value, depth);
            result.add(newValue);
            changed |= newValue != value;
        }
        return changed ? result : list;
    }

    private Object filterArray(Object[] array, int depth) {
        Object[] result = new Object[array.length];
        boolean changed = false;
        for (int i = 0; i < array.length; i++) {
            result[i] = filterValue(array[i], depth);
            changed |= result[i] != array[i];
        }
        return changed ? result : array;
    }

    /**
     * Filters a string value, wherever it appears. Returns {@code string} itself when
     * unchanged; may throw {@link AbortException}. The default returns it unchanged.
     */
    protected Object filterString(String string) {
        return string;
    }

    /**
     * Filters a string key of a map. Returns {@code key} itself when unchanged; may throw
     * {@link AbortException}. The default returns it unchanged.
     */
    protected String filterKey(String key) {
        return key;
    }

    /** Filters a number. The default returns it unchanged. */
    protected Object filterNumber(Number number) {
        return number;
    }

    /** Filters a boolean. The default returns it unchanged. */
    protected Object filterBoolean(Boolean bool) {
        return bool;
    }

    /** Filters a {@code null}: the data itself, an element or a map value. The default returns {@code null}. */
    protected Object filterNull() {
        return null;
    }

    /**
     * Filters a value that is none of the JSON kinds (a POJO, a primitive array...). The
     * default returns it unchanged.
     */
    protected Object filterOther(Object value) {
        return value;
    }
}
