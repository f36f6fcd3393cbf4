package io.bayeux.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters that an event loop adds to without an atomic instruction: each Netty thread
 * ({@link FastThreadLocalThread}: the event loops) counts into an array of its own with plain
 * stores, and the counters, registered as Micrometer {@link FunctionCounter}s, sum the arrays
 * when read (a scrape). Any other thread counts into a {@link LongAdder}, as Micrometer's
 * counters do. When a Netty thread ends, Netty removes its thread-locals and its counts go into
 * the adders.
 *
 * <p>For the counts of every message and frame, where an adder's compare-and-swap (Micrometer's
 * {@code Counter} is a {@code DoubleAdder}) was a measurable share of an event loop's time.
 *
 * <p>Thread-safe: a slot of a thread's array is written by that thread only (opaque stores, so
 * a reader sees whole values) and read by any; a sum and a thread's end are serialised, so a
 * count never appears twice nor goes missing for a moment (a Prometheus counter must not go
 * down).
 */
final class LoopTallies {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    private final MeterRegistry registry;
    private final List<String> names = new ArrayList<>();
    private final List<FunctionCounter> counters = new ArrayList<>();
    private LongAdder[] others = new LongAdder[0];
    /** The arrays of the Netty threads alive; guarded by itself. */
    private final Set<long[]> live = Collections.newSetFromMap(new IdentityHashMap<>());
    private final FastThreadLocal<long[]> local = new FastThreadLocal<>() {
        @Override
        protected long[] initialValue() {
            long[] slots = new long[others.length];
            synchronized (live) {
                live.add(slots);
            }
            return slots;
        }

        @Override
        protected void onRemoval(long[] slots) {
            synchronized (live) {
                live.remove(slots);
                for (int i = 0; i < slots.length; i++) {
                    others[i].add((long) SLOT.getOpaque(slots, i));
                }
            }
        }
    };

    LoopTallies(MeterRegistry registry) {
        this.registry = registry;
    }

    /**
     * Registers a counter and returns its slot, for {@link #add}. All counters are registered
     * before the first {@code add}: a thread's array is made at its first count.
     */
    int register(String name, String description, String baseUnit, Tags tags) {
        int slot = others.length;
        LongAdder[] grown = Arrays.copyOf(others, slot + 1);
        grown[slot] = new LongAdder();
        others = grown;
        names.add(name);
        counters.add(FunctionCounter.builder(name, this, tallies -> tallies.sum(slot))
                .description(description).baseUnit(baseUnit).tags(tags).register(registry));
        return slot;
    }

    /** Adds {@code n} to the counter of {@code slot}. */
    void add(int slot, long n) {
        if (Thread.currentThread() instanceof FastThreadLocalThread) {
            long[] slots = local.get();
            SLOT.setOpaque(slots, slot, (long) SLOT.getOpaque(slots, slot) + n);
        } else {
            others[slot].add(n);
        }
    }

    /** The count of {@code slot}: every thread's, summed. */
    long sum(int slot) {
        synchronized (live) {
            long sum = others[slot].sum();
            for (long[] slots : live) {
                sum += (long) SLOT.getOpaque(slots, slot);
            }
            return sum;
        }
    }

    /** Removes the counters from the registry. */
    void remove() {
        counters.forEach(registry::remove);
    }

    @Override
    public String toString() {
        return "LoopTallies" + names;
    }
}
