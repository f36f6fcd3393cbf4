package io.bayeux.oort.object;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Factories for the common values; each makes an unmodifiable value (values are replaced, never changed). */
public final class OortObjectFactories {
    private OortObjectFactories() {
    }

    /** A long, {@code defaultValue} by default; any number or numeric string arriving becomes a long. */
    public static OortObject.Factory<Long> forLong(long defaultValue) {
        return representation -> {
            if (representation == null) {
                return defaultValue;
            }
            if (representation instanceof Number number) {
                return number.longValue();
            }
            return Long.parseLong(representation.toString());
        };
    }

    /** A map, empty by default. */
    @SuppressWarnings("unchecked")
    public static <K, V> OortObject.Factory<Map<K, V>> forMap() {
        return representation -> representation instanceof Map<?, ?> map
                ? Collections.unmodifiableMap(new LinkedHashMap<>((Map<K, V>) map))
                : Collections.emptyMap();
    }

    /** A list, empty by default; an array or any collection arriving becomes a list. */
    @SuppressWarnings("unchecked")
    public static <E> OortObject.Factory<List<E>> forList() {
        return representation -> {
            if (representation instanceof Collection<?> collection) {
                return Collections.unmodifiableList(new ArrayList<>((Collection<E>) collection));
            }
            if (representation instanceof Object[] array) {
                return Collections.unmodifiableList(new ArrayList<>((List<E>) List.of(array)));
            }
            return Collections.emptyList();
        };
    }
}
