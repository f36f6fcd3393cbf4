package io.bayeux.oort.object;

import io.bayeux.oort.Oort;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

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
    protected Delta<List<E>> applyDelta(Info<List<E>> current, Map<String, Object> delta, List<Runnable> events) {
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
        events.add(() -> fire(add, current, told));
        return new Delta<>(Collections.unmodifiableList(next), Boolean.TRUE);
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

    /** Told of the elements each delta added or removed, here or on another node (the {@link Info}: whose part, before). */
    public interface ElementListener<E> {
        default void onAdded(Info<List<E>> info, List<E> elements) {
        }

        default void onRemoved(Info<List<E>> info, List<E> elements) {
        }
    }
}
