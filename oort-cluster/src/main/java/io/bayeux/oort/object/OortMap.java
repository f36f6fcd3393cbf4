package io.bayeux.oort.object;

import io.bayeux.oort.Oort;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A map per node, shared across the cloud: each node puts and removes entries in its own part
 * and finds any key in any part. Changes travel as deltas (CometD 8's fields:
 * {@code oort.info.type: "oort.map.entry"}, {@code oort.info.action: "oort.map.put" |
 * "oort.map.put.absent" | "oort.map.remove"}, {@code oort.info.object: {"oort.map.key": K,
 * "oort.map.value": V}}).
 *
 * <p>Keys and values travel as JSON: keys are strings on the other nodes (see
 * {@link OortStringMap}); numbers arrive as the JSON codec reads them (integers, longs or doubles).
 *
 * @param <K> the key type
 * @param <V> the value type
 */
public class OortMap<K, V> extends OortObject<Map<K, V>> {
    public static final String TYPE_ENTRY = "oort.map.entry";
    public static final String ACTION_PUT = "oort.map.put";
    public static final String ACTION_PUT_ABSENT = "oort.map.put.absent";
    public static final String ACTION_REMOVE = "oort.map.remove";
    public static final String KEY_FIELD = "oort.map.key";
    public static final String VALUE_FIELD = "oort.map.value";

    private final List<EntryListener<K, V>> entryListeners = new CopyOnWriteArrayList<>();

    public OortMap(Oort oort, String name) {
        super(oort, name, OortObjectFactories.forMap());
    }

    /** Puts an entry in this node's part and shares it; returns the previous value here. */
    @SuppressWarnings("unchecked")
    public V putAndShare(K key, V value) {
        return (V) shareDelta(delta(ACTION_PUT, key, Objects.requireNonNull(value, "value")));
    }

    /** Puts an entry in this node's part unless the key is there; shares it if put. Returns the value that was there, or null. */
    public V putIfAbsentAndShare(K key, V value) {
        V existing = get(key);
        if (existing != null) {
            return existing;
        }
        Object[] previous = new Object[1];
        shareDelta(delta(ACTION_PUT_ABSENT, key, Objects.requireNonNull(value, "value")), previous);
        @SuppressWarnings("unchecked")
        V result = (V) previous[0];
        return result;
    }

    /** Removes an entry from this node's part and shares it; returns the removed value, or null. */
    @SuppressWarnings("unchecked")
    public V removeAndShare(K key) {
        return (V) shareDelta(delta(ACTION_REMOVE, key, null));
    }

    private Object shareDelta(Map<String, Object> delta, Object[] previous) {
        // The value already there, if any, is found under the lock by applyDelta.
        delta.put(PREVIOUS_SLOT, previous);
        return shareDelta(delta);
    }

    /** Never sent: where a put-absent leaves the value it found. */
    private static final String PREVIOUS_SLOT = OortMap.class.getName() + ".previous";

    private Map<String, Object> delta(String action, K key, V value) {
        Objects.requireNonNull(key, "key");
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put(KEY_FIELD, key);
        if (value != null) {
            entry.put(VALUE_FIELD, value);
        }
        Map<String, Object> delta = new LinkedHashMap<>();
        delta.put(Info.OBJECT_FIELD, entry);
        delta.put(Info.TYPE_FIELD, TYPE_ENTRY);
        delta.put(Info.ACTION_FIELD, action);
        return delta;
    }

    @Override
    @SuppressWarnings("unchecked")
    protected Delta<Map<K, V>> applyDelta(Info<Map<K, V>> current, Map<String, Object> delta, List<Consumer<Info<Map<K, V>>>> events) {
        if (!TYPE_ENTRY.equals(delta.get(Info.TYPE_FIELD))) {
            return null;
        }
        Object[] previousSlot = (Object[]) delta.remove(PREVIOUS_SLOT);
        if (!(delta.get(Info.OBJECT_FIELD) instanceof Map<?, ?> entry)) {
            return null;
        }
        K key = (K) entry.get(KEY_FIELD);
        V value = (V) entry.get(VALUE_FIELD);
        Object action = delta.get(Info.ACTION_FIELD);
        Map<K, V> map = current.getObject();
        V previous = map.get(key);
        Map<K, V> next = new LinkedHashMap<>(map);
        if (ACTION_REMOVE.equals(action)) {
            if (previous == null) {
                return null;
            }
            next.remove(key);
            events.add(info -> fire(false, info, new Entry<>(key, previous, null)));
        } else if (ACTION_PUT.equals(action) || ACTION_PUT_ABSENT.equals(action)) {
            if (value == null || (ACTION_PUT_ABSENT.equals(action) && previous != null)) {
                if (previousSlot != null) {
                    previousSlot[0] = previous;
                }
                return null;
            }
            next.put(key, value);
            events.add(info -> fire(true, info, new Entry<>(key, previous, value)));
        } else {
            return null;
        }
        return new Delta<>(Collections.unmodifiableMap(next), previous);
    }

    /** A whole part arrived or replaced the one held: its entries put, changed (by {@code equals}) or gone are told, as CometD's {@code DeltaListener} tells them. */
    @Override
    protected void onPartReplaced(Info<Map<K, V>> oldInfo, Info<Map<K, V>> newInfo) {
        Map<K, V> oldMap = oldInfo == null ? Map.of() : oldInfo.getObject();
        Map<K, V> newMap = newInfo.getObject();
        for (Map.Entry<K, V> old : oldMap.entrySet()) {
            V newValue = newMap.get(old.getKey());
            if (newValue == null) {
                fire(false, newInfo, new Entry<>(old.getKey(), old.getValue(), null));
            } else if (!newValue.equals(old.getValue())) {
                fire(true, newInfo, new Entry<>(old.getKey(), old.getValue(), newValue));
            }
        }
        for (Map.Entry<K, V> added : newMap.entrySet()) {
            if (!oldMap.containsKey(added.getKey())) {
                fire(true, newInfo, new Entry<>(added.getKey(), null, added.getValue()));
            }
        }
    }

    /** A node's part removed: each of its entries is told removed. */
    @Override
    protected void onPartRemoved(Info<Map<K, V>> info) {
        for (Map.Entry<K, V> old : info.getObject().entrySet()) {
            fire(false, info, new Entry<>(old.getKey(), old.getValue(), null));
        }
    }

    private void fire(boolean put, Info<Map<K, V>> info, Entry<K, V> entry) {
        for (EntryListener<K, V> listener : entryListeners) {
            try {
                if (put) {
                    listener.onPut(info, entry);
                } else {
                    listener.onRemoved(info, entry);
                }
            } catch (RuntimeException x) {
                logger.warn("Entry listener {} failed", listener, x);
            }
        }
    }

    /** The value of {@code key} in this node's part. */
    public V get(K key) {
        Map<K, V> local = getLocal();
        return local == null ? null : local.get(key);
    }

    /** The value of {@code key} in any part held here, this node's first; null when none has it. */
    public V find(K key) {
        Info<Map<K, V>> info = findInfo(key);
        return info == null ? null : info.getObject().get(key);
    }

    /** The part that has {@code key}, this node's first; null when none has it. */
    public Info<Map<K, V>> findInfo(K key) {
        for (Info<Map<K, V>> info : getInfos()) {
            if (info.getObject().containsKey(key)) {
                return info;
            }
        }
        return null;
    }

    /** Every part's entries in one map (this node's value wins a shared key). */
    public Map<K, V> merged() {
        return merge(OortObjectMergers.mapUnion());
    }

    public void addEntryListener(EntryListener<K, V> listener) {
        entryListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    public void removeEntryListener(EntryListener<K, V> listener) {
        entryListeners.remove(listener);
    }

    /** A changed entry: its key, the value before (null if none) and after (null when removed). */
    public record Entry<K, V>(K key, V oldValue, V newValue) {
    }

    /**
     * Told of each entry put or removed, in any node's part, here or on another node; the
     * {@link Info} is the part after the change (or the part removed). Deltas tell their entry;
     * a part that arrives or is replaced whole (a node joining or starting late, a snapshot after
     * a gap, a partition healed, {@code setAndShare}) tells each entry that differs from what was
     * held: new and changed ones (by {@code equals}) put, missing ones removed; a part removed (its
     * node left, died or was cut off) tells each of its entries removed. Runs outside the lock,
     * on the thread that applied the change, after the {@link OortObject.Listener}s.
     */
    public interface EntryListener<K, V> {
        default void onPut(Info<Map<K, V>> info, Entry<K, V> entry) {
        }

        default void onRemoved(Info<Map<K, V>> info, Entry<K, V> entry) {
        }
    }
}
