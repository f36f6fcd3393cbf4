package io.bayeux.oort.object;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/** Mergers for the common values. */
public final class OortObjectMergers {
    private OortObjectMergers() {
    }

    /** The sum of the parts. */
    public static OortObject.Merger<Long, Long> longSum() {
        return infos -> {
            long sum = 0;
            for (Info<Long> info : infos) {
                sum += info.getObject();
            }
            return sum;
        };
    }

    /** Every part's entries in one map; where two parts have a key, the first part's value (this node's first). */
    public static <K, V> OortObject.Merger<Map<K, V>, Map<K, V>> mapUnion() {
        return infos -> {
            Map<K, V> union = new LinkedHashMap<>();
            for (Info<Map<K, V>> info : infos) {
                info.getObject().forEach(union::putIfAbsent);
            }
            return Collections.unmodifiableMap(union);
        };
    }

    /** Every part's elements, each once, in order of the parts (this node's first). */
    public static <E> OortObject.Merger<List<E>, List<E>> listUnion() {
        return infos -> {
            LinkedHashSet<E> union = new LinkedHashSet<>();
            for (Info<List<E>> info : infos) {
                union.addAll(info.getObject());
            }
            return Collections.unmodifiableList(new ArrayList<>(union));
        };
    }
}
