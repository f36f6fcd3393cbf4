package io.bayeux.oort;

import io.bayeux.api.ChannelId;
import io.bayeux.api.server.LocalSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Republishes on this node what the other nodes publish on the channels it observes, through
 * the Oort's own session, on one thread of its own and in the order received. Its queue is
 * bounded ({@link Oort#FORWARD_QUEUE}): when this node cannot keep up with what the others
 * send, a message is dropped, counted ({@link #droppedCount()}) and logged at most once a
 * second. One per Oort, started and stopped with it; thread-safe.
 */
final class Republisher {
    private static final Logger LOG = LoggerFactory.getLogger(Republisher.class);

    private final Oort oort;
    private final AtomicLong dropped = new AtomicLong();
    /** When a drop was last logged (System.nanoTime()); racy on purpose: it only spaces the logs. */
    private volatile long droppedLoggedAt;
    /** Replaced at each start; null before the first. */
    private volatile ThreadPoolExecutor executor;

    Republisher(Oort oort) {
        this.oort = oort;
    }

    void start(String name) {
        executor = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(Oort.FORWARD_QUEUE),
                task -> OortActor.daemon(task, name));
    }

    /** Republishes what is queued, for at most 2 s, then no more. */
    void stop() {
        ThreadPoolExecutor current = executor;
        if (current == null) {
            return;
        }
        current.shutdown();
        try {
            current.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
    }

    long droppedCount() {
        return dropped.get();
    }

    /**
     * On a link's I/O thread: queues a message of another node for republishing here, when
     * {@code channel} is observed (a wildcard observation never covers the cloud's own channels).
     */
    void offer(String channel, Object data) {
        if (!observes(channel)) {
            return;
        }
        try {
            executor.execute(() -> republish(channel, data));
        } catch (RejectedExecutionException x) {
            if (oort.isRunning()) {
                droppedOne(channel);
            }
        }
    }

    /**
     * Whether {@code channel} is observed, without parsing it or the patterns: this runs for
     * every message of every link, and a {@code /a/**} or {@code /a/*} pattern matches by its
     * prefix (the channel, published on its node, is a valid name).
     */
    private boolean observes(String channel) {
        boolean internal = Oort.isInternal(channel);
        for (String pattern : oort.observed()) {
            if (pattern.equals(channel)) {
                return true;
            }
            if (!internal && matchesWild(pattern, channel)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the wildcard {@code pattern} matches {@code channel}, as {@link ChannelId#matches(ChannelId)} does; false when it is no wildcard. */
    static boolean matchesWild(String pattern, String channel) {
        if (pattern.endsWith("/" + ChannelId.DEEPWILD)) {
            // "/a/**": "/a/" then one segment or more.
            int prefix = pattern.length() - ChannelId.DEEPWILD.length();
            return channel.length() > prefix && channel.regionMatches(0, pattern, 0, prefix);
        }
        if (pattern.endsWith("/" + ChannelId.WILD)) {
            // "/a/*": "/a/" then exactly one segment.
            int prefix = pattern.length() - ChannelId.WILD.length();
            return channel.length() > prefix && channel.regionMatches(0, pattern, 0, prefix) && channel.indexOf('/', prefix) < 0;
        }
        return false;
    }

    private void republish(String channel, Object data) {
        LocalSession session = oort.getOortSession();
        if (session != null && oort.isRunning()) {
            session.getChannel(channel).publish(data);
        }
    }

    private void droppedOne(String channel) {
        long count = dropped.incrementAndGet();
        long now = System.nanoTime();
        if (now - droppedLoggedAt > TimeUnit.SECONDS.toNanos(1)) {
            droppedLoggedAt = now;
            LOG.warn("Oort {}: republishing cannot keep up; dropped a message on {} ({} dropped so far)", oort.getURL(), channel, count);
        }
    }
}
