package io.bayeux.cluster.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.LocalSession;
import io.bayeux.server.internal.BayeuxServerImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * What a node receives from Redis on its channels: each message parsed, refused when it is the
 * node's own or a second copy ({@link Sequencer}), and handed, in order, to the local server on
 * one delivery thread; a message of a history goes to {@link RedisHistory}, which delivers it in
 * the order of its offsets. As the {@link SubscriptionReconciler.Reception}, it tells the
 * histories what the node receives now.
 * <p>
 * Thread-safe: {@link #arrived} runs on Lettuce's threads (one per Redis connection), the
 * reception callbacks on the cluster's control thread, and only the delivery thread publishes to
 * the local server, in the order in which the messages were accepted.
 * {@link #open()} and the shutdowns are called by {@link RedisCluster}'s start and stop, under its lock.
 */
final class InboundMessages implements SubscriptionReconciler.Reception {
    private static final Logger LOGGER = LoggerFactory.getLogger(InboundMessages.class);
    /** How many messages from other nodes may wait for the local server. */
    static final int DELIVERY_QUEUE = 100_000;

    private final String nodeId;
    /** How this node's own envelopes begin ({@link Envelope#prefix}): Redis sends them back to it, as to every subscriber. */
    private final String ownPrefix;
    private final BayeuxServer bayeux;
    private final Supplier<LocalSession> session;
    private final Supplier<RedisHistory> history;
    private final Predicate<String> receives;
    /** Told when each message of another node was published (its envelope's time). */
    private final LongConsumer arrivals;
    private final Sequencer sequencer = new Sequencer();
    /** Held while a message of another node is accepted by the {@link #sequencer} and queued for delivery. */
    private final Object queueing = new Object();
    private final AtomicLong received = new AtomicLong();
    /** Set by {@link #open()}, read on Lettuce's and the control thread. */
    private volatile ExecutorService delivery;

    /**
     * @param session  the cluster's own session, which re-publishes here what other nodes published
     * @param history  the histories in Redis, or null (none, or stopped)
     * @param receives whether the node receives a channel from Redis now
     * @param arrivals told, for each message of another node that arrives, when it was published (0: not stamped)
     */
    InboundMessages(String nodeId, BayeuxServer bayeux, Supplier<LocalSession> session, Supplier<RedisHistory> history,
                    Predicate<String> receives, LongConsumer arrivals) {
        this.nodeId = nodeId;
        this.ownPrefix = Envelope.prefix(nodeId);
        this.bayeux = bayeux;
        this.session = session;
        this.history = history;
        this.receives = receives;
        this.arrivals = arrivals;
    }

    /** Starts the delivery thread: messages wait for it, in order; past {@link #DELIVERY_QUEUE} they are lost and counted. */
    void open() {
        delivery = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(DELIVERY_QUEUE),
                task -> RedisCluster.daemon(task, "redis-cluster-delivery"), (task, executor) -> {
                    if (!executor.isShutdown()) {
                        sequencer.countLost();
                        LOGGER.warn("Redis cluster node {}: a message from another node dropped, {} waiting already", nodeId, DELIVERY_QUEUE);
                    }
                });
    }

    /** Delivers what waits, takes nothing more. */
    void shutdown() {
        delivery.shutdown();
    }

    /** Drops what waits. */
    void shutdownNow() {
        delivery.shutdownNow();
    }

    /** Waits at most {@code seconds} for what waits to be delivered. */
    void awaitTermination(long seconds) throws InterruptedException {
        delivery.awaitTermination(seconds, TimeUnit.SECONDS);
    }

    /**
     * On Lettuce's thread: a message on one of this node's Redis channels. The node's own
     * envelopes, half of what arrives when two nodes share their channels, are dropped unparsed.
     */
    void arrived(String json) {
        if (Envelope.isFrom(json, ownPrefix)) {
            // Delivered here when it was published; a history's message ({"o":...) is never one of these.
            return;
        }
        Map<?, ?> object;
        try {
            object = Envelope.parse(json);
        } catch (JsonProcessingException x) {
            LOGGER.warn("Not a cluster message: {}", json);
            return;
        }
        RedisHistory histories = history.get();
        if (object.containsKey("o") && histories != null) {
            // A message of a history, in the order of its offsets: every node delivers it, its origin too.
            received.incrementAndGet();
            delivery.execute(() -> histories.arrived(object));
            return;
        }
        Envelope envelope = Envelope.of(object);
        if (envelope == null) {
            // Not a channel message: e.g. a presence event still arriving on a Redis channel
            // whose handler was just removed (RedisSeti stopping).
            LOGGER.debug("Not a cluster message: {}", json);
            return;
        }
        if (nodeId.equals(envelope.node())) {
            return;
        }
        LocalSession local = session.get();
        // Accepted and queued as one step: a node subscribed to a channel on two connections at
        // once (the old owner's and the new one's, while a slot moves), each read on its own
        // thread, would otherwise queue a message after a later one it accepted after it.
        synchronized (queueing) {
            if (!sequencer.accept(envelope)) {
                return;
            }
            delivery.execute(() -> local.getChannel(envelope.channel()).publish(envelope.data()));
        }
        received.incrementAndGet();
        arrivals.accept(envelope.time());
    }

    /** Messages from other nodes delivered here. */
    long received() {
        return received.get();
    }

    /** Second copies refused. */
    long duplicates() {
        return sequencer.duplicates();
    }

    /** Gaps in an origin's numbering, and messages dropped because the delivery queue was full. */
    long lost() {
        return sequencer.lost();
    }

    // --- what the node receives: its histories catch up, its counts start again

    @Override
    public void received(String channelId) {
        ExecutorService executor = delivery;
        if (history.get() != null && bayeux instanceof BayeuxServerImpl impl && !executor.isShutdown()) {
            executor.execute(() -> impl.histories().received(channelId));
        }
    }

    @Override
    public void receptionChanged() {
        ExecutorService executor = delivery;
        if (history.get() != null && bayeux instanceof BayeuxServerImpl impl && !executor.isShutdown()) {
            executor.execute(impl.histories()::receptionChanged);
        }
    }

    @Override
    public void unsubscribed() {
        sequencer.forget(receives);
    }
}
