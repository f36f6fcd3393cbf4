package io.bayeux.transport;

import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * Collects the deliveries of a {@link RawClient} that has handshaken and connected: pushed over
 * WebSocket, or carried by a loop of long polls (and by the replies to what it sends through
 * {@link #send}), in the order they arrive.
 */
final class RawSubscriber implements AutoCloseable {
    final RawClient client;
    private final boolean websocket;
    private final BlockingQueue<Map<String, Object>> deliveries = new LinkedBlockingQueue<>();
    private final Queue<Map<String, Object>> others = new ConcurrentLinkedQueue<>();
    private volatile boolean running = true;
    private final Thread poller;

    RawSubscriber(RawClient client, boolean websocket) {
        this.client = client;
        this.websocket = websocket;
        if (websocket) {
            poller = null;
            return;
        }
        poller = Thread.ofPlatform().daemon().name("long-poll").start(() -> {
            while (running) {
                try {
                    keepDeliveries(client.connect());
                } catch (Exception x) {
                    return;
                }
            }
        });
    }

    /** Sends messages; the deliveries that come with the replies are kept in order. */
    @SafeVarargs
    final List<Map<String, Object>> send(Map<String, Object>... messages) throws Exception {
        List<Map<String, Object>> replies = client.send(messages);
        keepDeliveries(replies);
        return replies;
    }

    private void keepDeliveries(List<Map<String, Object>> messages) {
        for (Map<String, Object> message : messages) {
            if (message.containsKey("data")) {
                deliveries.add(message);
            } else {
                other(message);
            }
        }
    }

    /** Keeps the last few messages that were not deliveries (a reply, a disconnect): a failed wait names them. */
    private void other(Map<String, Object> message) {
        others.add(message);
        while (others.size() > 5) {
            others.poll();
        }
    }

    /** The next delivery, waiting at most {@code seconds}; fails without one. */
    Map<String, Object> next(int seconds) throws InterruptedException {
        Map<String, Object> delivery = poll(seconds, TimeUnit.SECONDS);
        assertNotNull(delivery, () -> "no delivery within " + seconds + " s; the last other messages: " + others
                + (client.closed().isDone() ? "; the connection ended: " + client.closed() : ""));
        return delivery;
    }

    /** The next delivery, or null when none came within the wait. */
    Map<String, Object> poll(long time, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(time);
        if (!websocket) {
            return deliveries.poll(time, unit);
        }
        do {
            Map<String, Object> kept = deliveries.poll();
            if (kept != null) {
                return kept;
            }
            Map<String, Object> message = client.received.poll(Math.min(100, Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()))),
                    TimeUnit.MILLISECONDS);
            if (message != null && message.containsKey("data")) {
                return message;
            }
            if (message != null) {
                other(message);
            }
        } while (System.nanoTime() < deadline);
        return deliveries.poll();
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        if (poller != null) {
            try {
                // Answers the held connect at once: the poller need not wait for its timeout.
                client.send(Map.of("channel", "/meta/disconnect"));
            } catch (Exception x) {
                // gone already
            }
            poller.join(TimeUnit.SECONDS.toMillis(10));
        }
    }
}
