package io.bayeux.cluster.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.LongFunction;

/**
 * The way out to the other nodes: numbers each channel's messages, publishes them to Redis in
 * that order and, while Redis is away (or back, but the other nodes may not have subscribed
 * again: until {@link #flush()}), keeps them in order, up to {@code capacity}; past it they are
 * dropped and counted, as are those Redis refuses.
 *
 * <p>Thread-safe: the numbering and the waiting messages are guarded by {@code lock}, so that
 * the numbers reach Redis in order; the counters are atomic.
 */
final class OutageBuffer {
    private static final Logger LOGGER = LoggerFactory.getLogger(OutageBuffer.class);

    private record Waiting(String redisChannel, String json) {
    }

    private final int capacity;
    private final BooleanSupplier connected;
    private final BiFunction<String, String, CompletionStage<Long>> publisher;
    private final Object lock = new Object();
    /** Guarded by {@link #lock}: the last number of each channel's messages. */
    private final Map<String, Long> sequences = new HashMap<>();
    /** Guarded by {@link #lock}: what waits for Redis, in order. */
    private final ArrayDeque<Waiting> waiting = new ArrayDeque<>();
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();

    /**
     * @param capacity  how many messages wait for Redis at most
     * @param connected whether Redis is there now
     * @param publisher publishes a message on a Redis channel ({@code PUBLISH} or {@code SPUBLISH}), while {@code connected}
     */
    OutageBuffer(int capacity, BooleanSupplier connected, BiFunction<String, String, CompletionStage<Long>> publisher) {
        this.capacity = capacity;
        this.connected = connected;
        this.publisher = publisher;
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
            if (!connected.getAsBoolean() || !waiting.isEmpty()) {
                // Redis away, or back but the other nodes may not have subscribed again yet: wait, in order.
                if (waiting.size() >= capacity) {
                    dropped.incrementAndGet();
                    LOGGER.debug("Message on {} dropped: {} already wait for Redis", channelId, capacity);
                } else {
                    waiting.add(new Waiting(redisChannel, json));
                }
                return;
            }
            send(redisChannel, json);
        }
    }

    /** Sends what waited while Redis was away; call once the other nodes had time to subscribe again. */
    void flush() {
        synchronized (lock) {
            if (!connected.getAsBoolean()) {
                return;
            }
            Waiting next;
            while ((next = waiting.poll()) != null) {
                send(next.redisChannel(), next.json());
            }
        }
    }

    /** Under {@link #lock}, so in order. */
    private void send(String redisChannel, String json) {
        try {
            publisher.apply(redisChannel, json).whenComplete((receivers, failure) -> {
                if (failure != null) {
                    dropped.incrementAndGet();
                    LOGGER.debug("Message on {} dropped: {}", redisChannel, failure.toString());
                } else {
                    published.incrementAndGet();
                }
            });
        } catch (RuntimeException x) {
            // Lettuce's request queue is full.
            dropped.incrementAndGet();
            LOGGER.debug("Message on {} dropped: {}", redisChannel, x.toString());
        }
    }

    /** Counts a message for the other nodes that Redis never took (sent by another part of the node). */
    void countDropped() {
        dropped.incrementAndGet();
    }

    long published() {
        return published.get();
    }

    long dropped() {
        return dropped.get();
    }
}
