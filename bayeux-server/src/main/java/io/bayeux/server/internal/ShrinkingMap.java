package io.bayeux.server.internal;

import java.util.AbstractCollection;
import java.util.Collection;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A concurrent map that gives back the table it grew to once most of its entries are gone. A
 * {@link ConcurrentHashMap} never shrinks its table (a reference per slot, up to two slots per
 * entry at its peak): a registry of a million sessions that all left would keep 8 MiB of empty
 * table, and 128 KiB after 19,000. {@link #compact} (the sweeper's, every sweep) copies the
 * entries into a map sized for them when they are fewer than a quarter of the peak since the
 * last copy and that peak reached {@value #MIN_PEAK}; below it the table is a few KiB.
 *
 * <p>Thread-safety: reads are lock-free on the current map ({@code volatile}); writes hold the
 * shared side of a read-write lock and a compaction its exclusive side, so that no write made
 * during a copy is lost and readers never see a map without the entries written before. For
 * maps written when sessions or connections come and go, not per message.
 */
final class ShrinkingMap<K, V> {
    /** The least peak after which a compaction copies: smaller tables are not worth it. */
    static final int MIN_PEAK = 1024;

    /** Writers share its read side; {@link #compact} takes its write side. */
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    /** Replaced only under the write side of {@link #lock}. */
    private volatile ConcurrentHashMap<K, V> map = new ConcurrentHashMap<>();
    /** The most entries since the last compaction: raised by writers, reset under the write side. */
    private final AtomicInteger peak = new AtomicInteger();
    private final Collection<V> values = new AbstractCollection<>() {
        @Override
        public Iterator<V> iterator() {
            return map.values().iterator();
        }

        @Override
        public int size() {
            return map.size();
        }
    };

    V get(K key) {
        return map.get(key);
    }

    V put(K key, V value) {
        lock.readLock().lock();
        try {
            ConcurrentHashMap<K, V> current = map;
            V previous = current.put(key, value);
            if (previous == null) {
                peak.accumulateAndGet(current.size(), Math::max);
            }
            return previous;
        } finally {
            lock.readLock().unlock();
        }
    }

    boolean remove(K key, V value) {
        lock.readLock().lock();
        try {
            return map.remove(key, value);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** A live view of the values: weakly consistent iterators, as a {@link ConcurrentHashMap}'s, over the map current at their start. */
    Collection<V> values() {
        return values;
    }

    int size() {
        return map.size();
    }

    /** The most entries since the last compaction. */
    int peak() {
        return peak.get();
    }

    /**
     * Copies the entries into a map sized for them when they are fewer than a quarter of a peak
     * of at least {@value #MIN_PEAK}; writers wait for the copy. Returns whether it copied.
     */
    boolean compact() {
        int top = peak.get();
        if (top < MIN_PEAK || map.size() > top / 4) {
            return false;
        }
        lock.writeLock().lock();
        try {
            ConcurrentHashMap<K, V> fresh = new ConcurrentHashMap<>(map);
            map = fresh;
            peak.set(fresh.size());
            return true;
        } finally {
            lock.writeLock().unlock();
        }
    }

    @Override
    public String toString() {
        return "ShrinkingMap[" + map.size() + " entries, peak " + peak.get() + "]";
    }
}
