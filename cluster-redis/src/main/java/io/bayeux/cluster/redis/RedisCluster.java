package io.bayeux.cluster.redis;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.internal.BayeuxServerImpl;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Observed channels shared by Bayeux servers through Redis (or Valkey) pub/sub, instead of
 * Oort's full mesh. Usually started by {@link RedisNode}, with presence and the server.
 * <p>
 * A message published by a remote client on an observed channel of this node is encoded once
 * ({@link Envelope}: origin node id, the origin's sequence number, channel, data) and published
 * once on the Redis channel {@code <prefix><bayeux channel>}. Each node subscribes in Redis only
 * to the observed channels its own clients subscribe to ({@link SubscriptionReconciler}),
 * re-publishes what arrives to its local subscribers, and drops its own messages (the origin
 * delivered them locally already) and any second copy ({@link Sequencer}).
 * <p>
 * While Redis is away, local publishing and delivery go on; messages for the other nodes wait,
 * in order, in a bounded buffer ({@link RedisConfig#bufferSize()}) and are sent once Redis is
 * back and the settle delay passed ({@link RedisConfig#settleDelay()}: time for the other nodes
 * to subscribe again); past that bound they are dropped and counted ({@link #getDropped()}).
 * Lettuce reconnects with back-off and the node subscribes again to its Redis channels.
 * <p>
 * Thread-safe. {@link #start()} and {@link #stop()} are guarded by {@code this}; a stopped
 * cluster may be started again.
 */
public class RedisCluster implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(RedisCluster.class);
    /** The default prefix of every Redis channel and key: {@link RedisConfig#DEFAULT_PREFIX}. */
    public static final String DEFAULT_PREFIX = RedisConfig.DEFAULT_PREFIX;
    /** How many times, on a Redis Cluster or behind Sentinel, a message is sent at most when its publish fails (its master died). */
    static final int FAILOVER_ATTEMPTS = 4;

    private final BayeuxServer bayeux;
    private final RedisConfig config;
    private final String nodeId = UUID.randomUUID().toString();
    private final ObservedChannels observed;
    private final Set<ServerChannel> listened = ConcurrentHashMap.newKeySet();
    private final List<EngineListener> engineListeners = new CopyOnWriteArrayList<>();
    private final OutageBuffer outbox;
    private final InboundMessages inbound;
    private final RedisStats stats;
    /** Guards the transitions of {@link #connected}. */
    private final Object healthLock = new Object();
    private volatile boolean connected;

    // Set by start() (under this), read on the server's, Lettuce's and the cluster's threads; shut down by stop().
    private volatile RedisConnection connection;
    private volatile SubscriptionReconciler reconciler;
    private volatile LocalSession session;
    private volatile ScheduledExecutorService control;
    private volatile Hooks hooks;
    /** The histories of the shared channels, in Redis; null when the server is not this project's. */
    private volatile RedisHistory history;
    /** Guarded by this. */
    private boolean started;

    /**
     * A cluster for {@code bayeux}, sharing the config's channels; {@link #start()} connects it.
     * Presence is {@link RedisSeti}'s, on top of it.
     */
    public RedisCluster(BayeuxServer bayeux, RedisConfig config) {
        this.bayeux = Objects.requireNonNull(bayeux, "bayeux");
        this.config = Objects.requireNonNull(config, "config");
        this.observed = new ObservedChannels(config.prefix(), config.mode() == RedisConfig.Mode.CLUSTER);
        config.channels().forEach(observed::add);
        // Where a master can change (a cluster, Sentinel), a message whose publish failed (its master died, or the new
        // master does not know the history's script) is sent again in its turn once the new master took over.
        this.outbox = new OutageBuffer(config.bufferSize(), () -> connected, this::publish, followsFailovers() ? FAILOVER_ATTEMPTS : 1, this::afterSettling);
        this.stats = new RedisStats(outbox);
        this.inbound = new InboundMessages(nodeId, bayeux, () -> session, () -> history, this::receives, stats::arrived);
    }

    /** What the way to Redis holds now and how late other nodes' messages arrive: for metrics. */
    public RedisStats stats() {
        return stats;
    }

    public BayeuxServer getBayeuxServer() {
        return bayeux;
    }

    public RedisConfig getConfig() {
        return config;
    }

    /** This node's id in the cluster: random, new at each start of the process. */
    public String getNodeId() {
        return nodeId;
    }

    /** The prefix of every Redis channel and key this cluster uses ({@link RedisConfig#prefix()}). */
    public String getPrefix() {
        return config.prefix();
    }

    /**
     * Connects to Redis and starts sharing; does nothing if started. Fails, with Lettuce's
     * {@link io.lettuce.core.RedisConnectionException}, if Redis cannot be reached now; once
     * started, the cluster rides out Redis' absences.
     */
    public synchronized void start() {
        if (started) {
            return;
        }
        started = true;
        control = Executors.newSingleThreadScheduledExecutor(task -> daemon(task, "redis-cluster-control"));
        inbound.open();
        RedisConnection opened;
        try {
            opened = new RedisConnection(config, inbound::arrived, this::changed, this::regained);
        } catch (RuntimeException x) {
            started = false;
            control.shutdownNow();
            inbound.shutdownNow();
            throw x;
        }
        connection = opened;
        connected = opened.isOpen();
        session = bayeux.newLocalSession("redis-cluster");
        session.handshake();
        reconciler = new SubscriptionReconciler(bayeux, observed, opened, control, this::ownSession, inbound);
        if (bayeux instanceof BayeuxServerImpl impl) {
            history = new RedisHistory(this, impl);
            impl.histories().setEngine(history);
        }
        hooks = new Hooks();
        bayeux.addListener(hooks);
        for (ServerChannel channel : bayeux.getChannels()) {
            hooks.channelAdded(channel);
            reconciler.reconcile(channel.getId());
        }
        LOGGER.info("Redis cluster node {} on {}", nodeId, config.redisURI());
    }

    /** Stops sharing and closes the connections, waiting for the cluster's threads about 2 s each; does nothing if stopped. */
    public void stop() {
        synchronized (this) {
            if (!started) {
                return;
            }
            started = false;
        }
        bayeux.removeListener(hooks);
        if (history != null && bayeux instanceof BayeuxServerImpl impl) {
            impl.histories().setEngine(null);
            history = null;
        }
        for (ServerChannel channel : listened) {
            channel.removeListener(hooks);
        }
        listened.clear();
        control.shutdown();
        inbound.shutdown();
        try {
            control.awaitTermination(2, TimeUnit.SECONDS);
            inbound.awaitTermination(2);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
        connection.close();
        session.disconnect();
        reconciler = null;
    }

    /** {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    // --- observed channels

    /** Shares the channels matching {@code channel} (wildcards allowed) with the other nodes. */
    public void observeChannel(String channel) {
        observed.add(channel);
        SubscriptionReconciler running = runningReconciler();
        if (running != null) {
            for (ServerChannel c : bayeux.getChannels()) {
                hooks.channelAdded(c);
                running.reconcile(c.getId());
            }
        }
    }

    public void deobserveChannel(String channel) {
        observed.remove(channel);
        for (ServerChannel c : List.copyOf(listened)) {
            if (!isObserved(c.getId())) {
                c.removeListener(hooks);
                listened.remove(c);
            }
        }
        SubscriptionReconciler running = runningReconciler();
        if (running != null) {
            for (ServerChannel c : bayeux.getChannels()) {
                running.reconcile(c.getId());
            }
        }
    }

    public Set<String> getObservedChannels() {
        return observed.patterns();
    }

    /** Whether a message on {@code channelId} (not a wildcard) is shared. */
    public boolean isObserved(String channelId) {
        return observed.isObserved(channelId);
    }

    /** Whether this node receives the messages of {@code channelId} (not a wildcard) from Redis: a subscription of its own covers it. */
    boolean receives(String channelId) {
        SubscriptionReconciler running = reconciler;
        return running != null && running.receives(channelId);
    }

    /**
     * The Redis channels and patterns this node is subscribed to, as last decided (a subscribe
     * confirmed by Redis, or waiting for it to come back); empty when stopped.
     */
    public Set<String> getRedisSubscriptions() {
        SubscriptionReconciler running = reconciler;
        return running == null ? Set.of() : running.subscriptions();
    }

    /** Whether the Redis subscription this node needs for {@code channelId} is in place. */
    public boolean isSubscribed(String channelId) {
        SubscriptionReconciler running = reconciler;
        return running != null && running.isSubscribed(channelId);
    }

    /** Whether {@code session} is the in-process session that re-publishes here what other nodes published. */
    public boolean isClusterSession(ServerSession session) {
        return session != null && session == ownSession();
    }

    private ServerSession ownSession() {
        LocalSession local = this.session;
        return local == null ? null : local.getServerSession();
    }

    private SubscriptionReconciler runningReconciler() {
        return isStarted() ? reconciler : null;
    }

    // --- what RedisSeti and RedisHistory share

    /** Subscribes this node to a Redis channel of its own (presence, direct messages), handled by {@code handler}. */
    void subscribeDirect(String redisChannel, Consumer<String> handler) {
        connection.subscribeDirect(redisChannel, handler);
    }

    void unsubscribeDirect(String redisChannel) {
        connection.unsubscribeDirect(redisChannel);
    }

    /** The commands connection (requests queue, in order, while Redis is away; on a cluster, routed by slot). */
    RedisClusterAsyncCommands<String, String> commands() {
        return connection.commands();
    }

    /** {@code PUBLISH}es (on a cluster {@code SPUBLISH}es) {@code json} on {@code redisChannel}; a failed future when stopped. */
    CompletionStage<Long> publish(String redisChannel, String json) {
        RedisConnection current = connection;
        return current == null ? CompletableFuture.failedFuture(new IllegalStateException("not started")) : current.publish(redisChannel, json);
    }

    /**
     * Sends what {@code send} sends in its turn among this node's messages, as they are sent (on a
     * cluster: held back after a topology change, sent again if it fails); {@code lost} told if given up.
     */
    void submit(String what, OutageBuffer.Sender send, Consumer<Throwable> lost) {
        outbox.submit(what, send, lost);
    }

    /** The Redis channel of {@code channelId}'s messages: {@code <prefix><channel>}, hash-tagged on a cluster. */
    String redisChannel(String channelId) {
        return observed.redisChannel(channelId);
    }

    /** Whether the master this node publishes to can change under it: on a Redis Cluster or behind Sentinel. */
    boolean followsFailovers() {
        return config.mode() != RedisConfig.Mode.STANDALONE;
    }

    /** Holds this node's next messages back until every one sent is answered (see {@link OutageBuffer#hold()}). */
    void holdOutbox() {
        outbox.hold();
    }

    /** Whether this node is on a Redis Cluster, with sharded pub/sub. */
    boolean isSharded() {
        return config.mode() == RedisConfig.Mode.CLUSTER;
    }

    LocalSession localSession() {
        return session;
    }

    /** Counts a message for the other nodes that Redis never took. */
    void countDropped() {
        outbox.countDropped();
    }

    // --- messages

    private void outgoing(ServerSession from, ServerChannel channel, ServerMessage.Mutable message) {
        if (from != null && from == ownSession()) {
            return;
        }
        if (history != null && bayeux instanceof BayeuxServerImpl impl && impl.histories().policy(channel.getId()) != null) {
            // Its history's script publishes it, with its position.
            return;
        }
        String channelId = channel.getId();
        Object data = message.getData();
        outbox.publish(channelId, observed.redisChannel(channelId), seq -> new Envelope(nodeId, channelId, data, seq));
    }

    // --- health

    /** Messages this node sent to Redis (confirmed by Redis). */
    public long getPublished() {
        return outbox.published();
    }

    /** Messages from other nodes delivered here. */
    public long getReceived() {
        return inbound.received();
    }

    /** Second copies of a message dropped here (a message matching two of this node's Redis subscriptions). */
    public long getDuplicates() {
        return inbound.duplicates();
    }

    /**
     * Messages from other nodes this node knows it missed: each origin numbers its messages per
     * channel, and a gap before a message that arrives is counted here (losses at the very end
     * of a channel's traffic show with its next message); and messages dropped here because
     * 100,000 were already waiting for the local server.
     */
    public long getLost() {
        return inbound.lost();
    }

    /**
     * Messages for the other nodes lost: the buffer was full while Redis was away, or Redis
     * refused them (or, for a history's publish, took a later one of this node first).
     */
    public long getDropped() {
        return outbox.dropped();
    }

    /** Whether both connections to Redis are up. */
    public boolean isConnected() {
        return connected;
    }

    public boolean isStarted() {
        synchronized (this) {
            return started;
        }
    }

    public void addEngineListener(EngineListener listener) {
        engineListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    public void removeEngineListener(EngineListener listener) {
        engineListeners.remove(listener);
    }

    /** Told when this node loses Redis, and when it has it again. */
    public interface EngineListener {
        void engineChanged(RedisCluster cluster, boolean connected);
    }

    private void changed(boolean up) {
        boolean now;
        synchronized (healthLock) {
            RedisConnection current = connection;
            // On a cluster, one node's connection going down is not Redis away: only the two main connections say.
            now = (up || isSharded()) && current != null && current.isOpen();
            if (now == connected) {
                return;
            }
            connected = now;
        }
        if (now) {
            SubscriptionReconciler running = reconciler;
            if (running != null) {
                running.resubscribe();
            }
            ScheduledExecutorService scheduler = control;
            if (scheduler != null && !scheduler.isShutdown()) {
                scheduler.schedule(outbox::flush, config.settleDelay().toMillis(), TimeUnit.MILLISECONDS);
            }
            LOGGER.info("Redis cluster node {}: Redis {} is back", nodeId, config.redisURI());
        } else {
            LOGGER.warn("Redis cluster node {}: Redis {} is away; local clients are still served, messages for other nodes wait (at most {})",
                    nodeId, config.redisURI(), config.bufferSize());
            // Redis may be gone since before this moment: what Lettuce still holds it sends on reconnection.
        }
        for (EngineListener listener : engineListeners) {
            try {
                listener.engineChanged(this, now);
            } catch (RuntimeException x) {
                LOGGER.warn("Engine listener failed", x);
            }
        }
    }

    /** Runs {@code task} on the control thread once the settle delay passed; not when stopped. */
    private void afterSettling(Runnable task) {
        ScheduledExecutorService scheduler = control;
        if (scheduler != null && !scheduler.isShutdown()) {
            scheduler.schedule(task, config.settleDelay().toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** A cluster's topology changed, or Redis ended a shard subscription: subscribe again where each channel lives now. */
    private void regained() {
        if (isSharded()) {
            outbox.hold();
        }
        SubscriptionReconciler running = reconciler;
        if (running != null) {
            running.resubscribe();
        }
    }

    static Thread daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    @Override
    public String toString() {
        return "RedisCluster[" + nodeId + "@" + config.redisURI() + "]";
    }

    /** What the cluster installs on its server. */
    private final class Hooks implements BayeuxServer.ChannelListener, BayeuxServer.SubscriptionListener, ServerChannel.MessageListener {
        @Override
        public void channelAdded(ServerChannel channel) {
            if (isObserved(channel.getId()) && listened.add(channel)) {
                channel.addListener(this);
            }
        }

        @Override
        public void channelRemoved(String channelId) {
            listened.removeIf(c -> c.getId().equals(channelId));
            reconcile(channelId);
        }

        @Override
        public void subscribed(ServerSession s, ServerChannel channel, ServerMessage message) {
            reconcile(channel.getId());
        }

        @Override
        public void unsubscribed(ServerSession s, ServerChannel channel, ServerMessage message) {
            reconcile(channel.getId());
        }

        @Override
        public boolean onMessage(ServerSession from, ServerChannel channel, ServerMessage.Mutable message) {
            outgoing(from, channel, message);
            return true;
        }

        private void reconcile(String channelId) {
            SubscriptionReconciler running = reconciler;
            if (running != null) {
                running.reconcile(channelId);
            }
        }
    }
}
