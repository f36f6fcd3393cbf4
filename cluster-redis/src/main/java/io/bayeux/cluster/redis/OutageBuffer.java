package io.bayeux.cluster.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongFunction;

/**
 * The way out to the other nodes: numbers each channel's messages, publishes them to Redis in
 * that order and, while Redis is away (or back, but the other nodes may not have subscribed
 * again: until {@link #flush()}), keeps them in order, up to {@code capacity}; past it they are
 * dropped and counted, as are those Redis refuses.
 * <p>
 * With {@code attempts} above 1 (on a Redis Cluster) a message whose publish failed (its command
 * timed out in the queue of a master that died) is sent again, up to that many times in all: it
 * and every message after it wait, in their order, for a flush that {@code later} runs (after
 * the settle delay, and again until no publish is left unanswered, so that none fails after
 * it). A second copy that reaches a node anyway is refused there by its number.
 *
 * <p>Thread-safe: the numbering and the waiting messages are guarded by {@code lock}, so that
 * the numbers reach Redis in order; the counters are atomic.
 */
final class OutageBuffer {
    private static final Logger LOGGER = LoggerFactory.getLogger(OutageBuffer.class);

    /**
     * A message for Redis: {@code order} is its place among all this node's messages, {@code send}
     * sends it (given its order), {@code lost} is told when it is given up.
     */
    private record Waiting(long order, String what, Sender send, Consumer<Throwable> lost, boolean message, int attempt) {
        Waiting again() {
            return new Waiting(order, what, send, lost, message, attempt + 1);
        }
    }

    private final int capacity;
    private final BooleanSupplier connected;
    private final BiFunction<String, String, CompletionStage<Long>> publisher;
    private final int attempts;
    private final Consumer<Runnable> later;
    private final Object lock = new Object();
    /** Guarded by {@link #lock}: the last number of each channel's messages. */
    private final Map<String, Long> sequences = new HashMap<>();
    /** Guarded by {@link #lock}: what waits for Redis, in order. */
    private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
    /** Guarded by {@link #lock}: what Redis failed to take, to send again, by order (all older than {@link #waiting}'s). */
    private final TreeMap<Long, Waiting> failed = new TreeMap<>();
    /** Guarded by {@link #lock}. */
    private long order;
    /** Guarded by {@link #lock}: whether a flush for the failed ones is scheduled. */
    private boolean flushScheduled;
    /** Guarded by {@link #lock}: whether new messages wait for the flush ({@link #hold()}). */
    private boolean holding;
    /** Sent and not answered yet. */
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();

    /** One attempt per message: {@code OutageBuffer(capacity, connected, publisher, 1, task -> { })}. */
    OutageBuffer(int capacity, BooleanSupplier connected, BiFunction<String, String, CompletionStage<Long>> publisher) {
        this(capacity, connected, publisher, 1, task -> { });
    }

    /**
     * @param capacity  how many messages wait for Redis at most
     * @param connected whether Redis is there now
     * @param publisher publishes a message on a Redis channel ({@code PUBLISH} or {@code SPUBLISH}), while {@code connected}
     * @param attempts  how many times a message is sent, at most, when its publish fails (1: never again)
     * @param later     runs a task after the settle delay: the flush of the failed messages
     */
    OutageBuffer(int capacity, BooleanSupplier connected, BiFunction<String, String, CompletionStage<Long>> publisher,
                 int attempts, Consumer<Runnable> later) {
        this.capacity = capacity;
        this.connected = connected;
        this.publisher = publisher;
        this.attempts = attempts;
        this.later = later;
    }

    /**
     * Numbers the next message of {@code channelId}, encodes it with its number, and publishes
     * it on {@code redisChannel}, or keeps it until Redis is back and settled.
     */
    void publish(String channelId, String redisChannel, LongFunction<Envelope> envelope) {
        synchronized (lock) {
            String json;
            try {
                json = envelope.apply(sequences.merge(channelId, 1L, Long::sum)).encode();
            } catch (JsonProcessingException x) {
                LOGGER.warn("Message on {} not shared: {}", channelId, x.toString());
                return;
            }
            enqueue(new Waiting(++order, redisChannel, (o, attempt) -> publisher.apply(redisChannel, json), this::countDropped, true, 1));
        }
    }

    /** Sends one message for Redis. */
    @FunctionalInterface
    interface Sender {
        /**
         * @param order   the message's place among this node's messages, the same at each attempt
         * @param attempt 1 the first time it is sent, 2 the second...
         */
        CompletionStage<?> send(long order, int attempt);
    }

    /**
     * Sends what {@code send} sends in its turn among the messages, or keeps it as it keeps them;
     * tells {@code lost} if it is given up. For what a node sends other than a message
     * ({@code what} names it in the log): a history's publish, on a cluster.
     */
    void submit(String what, Sender send, Consumer<Throwable> lost) {
        synchronized (lock) {
            enqueue(new Waiting(++order, what, send, lost, false, 1));
        }
    }

    /** Under {@link #lock}. */
    private void enqueue(Waiting message) {
        if (!connected.getAsBoolean() || !waiting.isEmpty() || !failed.isEmpty() || holding) {
            // Redis away, or back but the other nodes may not have subscribed again yet, or
            // earlier messages to send again: wait, in order.
            if (waiting.size() + failed.size() >= capacity) {
                LOGGER.debug("Message on {} dropped: {} already wait for Redis", message.what(), capacity);
                message.lost().accept(new IllegalStateException(capacity + " already wait for Redis"));
            } else {
                waiting.add(message);
            }
            return;
        }
        send(message);
    }

    /** Sends what waited (those to send again first, in their order); call once the other nodes had time to subscribe again. */
    void flush() {
        synchronized (lock) {
            flushScheduled = false;
            if (!connected.getAsBoolean()) {
                return;
            }
            if ((holding || !failed.isEmpty()) && inFlight.get() > 0) {
                // Those still unanswered may fail too: sent again now, they would come after later ones.
                flushScheduled = true;
                later.accept(this::flush);
                return;
            }
            holding = false;
            // A send may fail, or hold, at once (its answer already there): then nothing after it
            // goes now, or it would reach Redis before that one is sent again.
            List<Waiting> again = new ArrayList<>(failed.values());
            failed.clear();
            for (int i = 0; i < again.size(); i++) {
                if (holding || !failed.isEmpty()) {
                    again.subList(i, again.size()).forEach(message -> failed.put(message.order(), message));
                    return;
                }
                send(again.get(i));
            }
            Waiting next;
            while (!holding && failed.isEmpty() && (next = waiting.poll()) != null) {
                send(next);
            }
        }
    }

    /** Under {@link #lock}, so in order. */
    private void send(Waiting message) {
        try {
            inFlight.incrementAndGet();
            message.send().send(message.order(), message.attempt()).whenComplete((reply, failure) -> {
                if (failure == null) {
                    inFlight.decrementAndGet();
                    if (message.message()) {
                        published.incrementAndGet();
                    }
                    return;
                }
                // Kept to send again before it counts as answered: a flush that finds nothing in
                // flight must find it among the failed, or it would send later ones before it.
                boolean kept = again(message);
                inFlight.decrementAndGet();
                if (!kept) {
                    LOGGER.debug("Message on {} dropped: {}", message.what(), failure.toString());
                    message.lost().accept(failure);
                }
            });
        } catch (RuntimeException x) {
            // Lettuce's request queue is full.
            inFlight.decrementAndGet();
            LOGGER.debug("Message on {} dropped: {}", message.what(), x.toString());
            message.lost().accept(x);
        }
    }

    /**
     * Holds the next messages back while any sent is unanswered, then flushes (after the settle
     * delay, and until none is): on a cluster whose topology changed, those sent to a master that
     * died may fail and be sent again, and must not come after later ones that went straight to
     * the new master.
     */
    void hold() {
        synchronized (lock) {
            if (attempts <= 1 || inFlight.get() == 0) {
                return;
            }
            holding = true;
            if (!flushScheduled) {
                flushScheduled = true;
                later.accept(this::flush);
            }
        }
    }

    /** Keeps a failed message to send again, if it has an attempt left and there is room; schedules the flush. */
    private boolean again(Waiting message) {
        if (message.attempt() >= attempts) {
            return false;
        }
        synchronized (lock) {
            if (waiting.size() + failed.size() >= capacity) {
                return false;
            }
            failed.put(message.order(), message.again());
            if (!flushScheduled) {
                flushScheduled = true;
                later.accept(this::flush);
            }
            return true;
        }
    }

    /** Counts a message for the other nodes that Redis never took (sent by another part of the node). */
    void countDropped() {
        dropped.incrementAndGet();
    }

    private void countDropped(Throwable reason) {
        dropped.incrementAndGet();
    }

    /** The messages Redis took (not what was {@link #submit}ted). */
    long published() {
        return published.get();
    }

    long dropped() {
        return dropped.get();
    }

    /** Sent and not answered yet. */
    int inFlight() {
        return inFlight.get();
    }

    /** What waits for Redis, or to be sent again. */
    int buffered() {
        synchronized (lock) {
            return waiting.size() + failed.size();
        }
    }
}
