package io.bayeux.server.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * The subscribers of a channel: a concurrent set that costs about 6 bytes per element where a
 * {@code ConcurrentHashMap} key set costs about 40 (a node per element), and that a publish
 * iterates as arrays, without locking.
 *
 * <p>Elements are spread by hash over buckets; each bucket is an immutable array, replaced
 * (copy-on-write) by every change to it, so a change copies one bucket of about
 * {@value #LOAD} elements, never the whole set. Changes take this set's monitor; reads take no
 * lock. When the set grows past {@value #LOAD} elements per bucket, or shrinks well below, the
 * buckets are rebuilt into a new table.
 *
 * <p>Iterators are weakly consistent, like a {@code ConcurrentHashMap}'s: they see the table
 * as it was when they started, each bucket as it is when they reach it; they never throw
 * {@code ConcurrentModificationException} and never return an element twice.
 */
final class SubscriberSet<E> extends AbstractSet<E> {
    /** Elements per bucket past which the table doubles. */
    static final int LOAD = 8;
    private static final Object[] EMPTY = new Object[0];
    private static final VarHandle BUCKET = MethodHandles.arrayElementVarHandle(Object[][].class);

    /** The buckets; its length a power of two. Its slots are written under this set's monitor, read with acquire. */
    private volatile Object[][] table = new Object[][] {EMPTY};
    /** Written under this set's monitor. */
    private volatile int size;

    private static int spread(Object element) {
        int h = element.hashCode();
        return h ^ (h >>> 16);
    }

    private static Object[] bucket(Object[][] table, int index) {
        return (Object[]) BUCKET.getAcquire(table, index);
    }

    private static int indexOf(Object[] bucket, Object element) {
        for (int i = 0; i < bucket.length; i++) {
            if (bucket[i] == element || bucket[i].equals(element)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public boolean isEmpty() {
        return size == 0;
    }

    @Override
    public boolean contains(Object element) {
        if (element == null) {
            return false;
        }
        Object[][] t = table;
        return indexOf(bucket(t, spread(element) & (t.length - 1)), element) >= 0;
    }

    @Override
    public synchronized boolean add(E element) {
        Objects.requireNonNull(element, "element");
        Object[][] t = table;
        int index = spread(element) & (t.length - 1);
        Object[] bucket = bucket(t, index);
        if (indexOf(bucket, element) >= 0) {
            return false;
        }
        Object[] grown = Arrays.copyOf(bucket, bucket.length + 1);
        grown[bucket.length] = element;
        BUCKET.setRelease(t, index, grown);
        int n = size + 1;
        size = n;
        if (n > t.length * LOAD) {
            rebuild(t, t.length * 2);
        }
        return true;
    }

    @Override
    public synchronized boolean remove(Object element) {
        if (element == null) {
            return false;
        }
        Object[][] t = table;
        int index = spread(element) & (t.length - 1);
        Object[] bucket = bucket(t, index);
        int at = indexOf(bucket, element);
        if (at < 0) {
            return false;
        }
        Object[] shrunk;
        if (bucket.length == 1) {
            shrunk = EMPTY;
        } else {
            shrunk = new Object[bucket.length - 1];
            System.arraycopy(bucket, 0, shrunk, 0, at);
            System.arraycopy(bucket, at + 1, shrunk, at, bucket.length - at - 1);
        }
        BUCKET.setRelease(t, index, shrunk);
        int n = size - 1;
        size = n;
        if (t.length > 1 && n < t.length * LOAD / 4) {
            rebuild(t, t.length / 2);
        }
        return true;
    }

    @Override
    public synchronized void clear() {
        table = new Object[][] {EMPTY};
        size = 0;
    }

    /** Under the monitor: the same elements in a new table of {@code length} buckets; the old table is never written again. */
    private void rebuild(Object[][] old, int length) {
        int[] counts = new int[length];
        for (Object[] bucket : old) {
            for (Object element : bucket) {
                counts[spread(element) & (length - 1)]++;
            }
        }
        Object[][] made = new Object[length][];
        for (int i = 0; i < length; i++) {
            made[i] = counts[i] == 0 ? EMPTY : new Object[counts[i]];
            counts[i] = 0;
        }
        for (Object[] bucket : old) {
            for (Object element : bucket) {
                int index = spread(element) & (length - 1);
                made[index][counts[index]++] = element;
            }
        }
        table = made;
    }

    @Override
    public Iterator<E> iterator() {
        return new Iterator<>() {
            private final Object[][] t = table;
            private int index;
            private Object[] bucket = bucket(t, 0);
            private int at;
            private Object last;

            @Override
            public boolean hasNext() {
                while (at >= bucket.length) {
                    if (++index >= t.length) {
                        return false;
                    }
                    bucket = bucket(t, index);
                    at = 0;
                }
                return true;
            }

            @Override
            @SuppressWarnings("unchecked")
            public E next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                last = bucket[at++];
                return (E) last;
            }

            @Override
            public void remove() {
                if (last == null) {
                    throw new IllegalStateException();
                }
                SubscriberSet.this.remove(last);
                last = null;
            }
        };
    }
}
