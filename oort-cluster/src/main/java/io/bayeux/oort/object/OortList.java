package io.bayeux.oort.object;

import io.bayeux.oort.Oort;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A list per node, shared across the cloud: each node adds and removes elements of its own
 * part; {@link #isPresent} looks in every part. Changes travel as deltas
 * (CometD 8's fields: {@code oort.info.type: "oort.list.element"}, {@code oort.info.action:
 * "oort.list.add" | "oort.list.remove"}, {@code oort.info.object}: the elements). A removal
 * removes every occurrence of each element, as CometD's does.
 *
 * @param <E> the element type (JSON: numbers arrive on other nodes as the codec reads them: integers, longs or doubles)
 */
public class OortList<E> extends OortObject<List<E>> {
    public static final String TYPE_ELEMENT = "oort.list.element";
    public static final String ACTION_ADD = "oort.list.add";
    public static final String ACTION_REMOVE = "oort.list.remove";

    private final List<ElementListener<E>> elementListeners = new CopyOnWriteArrayList<>();

    public OortList(Oort oort, String name) {
        super(oort, name, OortObjectFactories.forList());
    }

    /** Appends the elements to this node's part and shares them; returns whether any was added. */
    @SafeVarargs
    public final boolean addAndShare(E... elements) {
        return shareDelta(delta(ACTION_ADD, elements)) != null;
    }

    /** Removes the elements (every occurrence) from this node's part and shares it; returns whether any was removed. */
    @SafeVarargs
    public final boolean removeAndShare(E... elements) {
        return shareDelta(delta(ACTION_REMOVE, elements)) != null;
    }

    private Map<String, Object> delta(String action, E[] elements) {
        List<E> items = new ArrayList<>(elements.length);
        for (E element : elements) {
            items.add(Objects.requireNonNull(element, "element"));
        }
        Map<String, Object> delta = new LinkedHashMap<>();
        delta.put(Info.TYPE_FIELD, TYPE_ELEMENT);
        delta.put(Info.ACTION_FIELD, action);
        delta.put(Info.OBJECT_FIELD, items);
        return delta;
    }

    @Override
    @SuppressWarnings("unchecked")
    protected Delta<List<E>> applyDelta(Info<List<E>> current, Map<String, Object> delta, List<Consumer<Info<List<E>>>> events) {
        if (!TYPE_ELEMENT.equals(delta.get(Info.TYPE_FIELD))) {
            return null;
        }
        Object itemsField = delta.get(Info.OBJECT_FIELD);
        List<E> items = itemsField instanceof List<?> list ? (List<E>) list
                : itemsField instanceof Object[] array ? (List<E>) List.of(array) : List.of();
        if (items.isEmpty()) {
            return null;
        }
        List<E> next = new ArrayList<>(current.getObject());
        List<E> changed = new ArrayList<>();
        boolean add = ACTION_ADD.equals(delta.get(Info.ACTION_FIELD));
        if (add) {
            next.addAll(items);
            changed.addAll(items);
        } else if (ACTION_REMOVE.equals(delta.get(Info.ACTION_FIELD))) {
            for (E item : items) {
                if (next.removeIf(item::equals) && !changed.contains(item)) {
                    changed.add(item);
                }
            }
        }
        if (changed.isEmpty()) {
            return null;
        }
        List<E> told = Collections.unmodifiableList(changed);
        events.add(info -> fire(add, info, told));
        return new Delta<>(Collections.unmodifiableList(next), Boolean.TRUE);
    }

    /**
     * A whole part arrived or replaced the one held: the elements it has more of are told added,
     * those it has fewer of removed (counting duplicates; CometD's {@code DeltaListener} does the
     * same for distinct elements), in their order, additions first.
     */
    @Override
    protected void onPartReplaced(Info<List<E>> oldInfo, Info<List<E>> newInfo) {
        List<E> oldList = oldInfo == null ? List.of() : oldInfo.getObject();
        List<E> newList = newInfo.getObject();
        List<E> added = minus(newList, oldList);
        List<E> removed = minus(oldList, newList);
        if (!added.isEmpty()) {
            fire(true, newInfo, added);
        }
        if (!removed.isEmpty()) {
            fire(false, newInfo, removed);
        }
    }

    /** A node's part removed: its elements are told removed. */
    @Override
    protected void onPartRemoved(Info<List<E>> info) {
        if (!info.getObject().isEmpty()) {
            fire(false, info, info.getObject());
        }
    }

    /** The elements of {@code from}, in order, less one occurrence for each in {@code less}. */
    private static <E> List<E> minus(List<E> from, List<E> less) {
        Map<E, Integer> left = new HashMap<>();
        for (E element : less) {
            left.merge(element, 1, Integer::sum);
        }
        List<E> result = new ArrayList<>();
        for (E element : from) {
            Integer count = left.get(element);
            if (count == null) {
                result.add(element);
            } else if (count == 1) {
                left.remove(element);
            } else {
                left.put(element, count - 1);
            }
        }
        return Collections.unmodifiableList(result);
    }

    private void fire(boolean added, Info<List<E>> info, List<E> elements) {
        for (ElementListener<E> listener : elementListeners) {
            try {
                if (added) {
                    listener.onAdded(info, elements);
                } else {
                    listener.onRemoved(info, elements);
                }
            } catch (RuntimeException x) {
                logger.warn("Element listener {} failed", listener, x);
            }
        }
    }

    /** Whether this node's part has {@code element}. */
    public boolean contains(E element) {
        List<E> local = getLocal();
        return local != null && local.contains(element);
    }

    /** Whether any part held here has {@code element}. */
    public boolean isPresent(E element) {
        for (Info<List<E>> info : getInfos()) {
            if (info.getObject().contains(element)) {
                return true;
            }
        }
        return false;
    }

    /** Every part's elements, each once (this node's first). */
    public List<E> merged() {
        return merge(OortObjectMergers.listUnion());
    }

    public void addElementListener(ElementListener<E> listener) {
        elementListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    public void removeElementListener(ElementListener<E> listener) {
        elementListeners.remove(listener);
    }

    /**
     * Told of the elements added to or removed from any node's part, here or on another node; the
     * {@link Info} is the part after the change (or the part removed). Deltas tell their elements
     * (a removal each removed element once); a part that arrives or is replaced whole (a node
     * joining or starting late, a snapshot after a gap, a partition healed, {@code setAndShare})
     * tells the difference from what was held; a part removed (its node left, died or was cut
     * off) tells all its elements removed. Runs outside the lock, on the thread that applied the
     * change, after the {@link OortObject.Listener}s.
     */
    public interface ElementListener<E> {
        default void onAdded(Info<List<E>> info, List<E> elements) {
        }

        default void onRemoved(Info<List<E>> info, List<E> elements) {
        }
    }
}
