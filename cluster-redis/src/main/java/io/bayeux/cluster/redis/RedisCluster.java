package io.bayeux.cluster.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bayeux.api.ChannelId;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.BayeuxServerImpl;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.event.connection.ConnectionDeactivatedEvent;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Observed channels shared by Bayeux servers through Redis (or Valkey) pub/sub, instead of
 * Oort's full mesh.
 * <p>
 * A message published by a remote client on an observed channel of this node is encoded once
 * (JSON: origin node id, the origin's sequence number, channel, data) and published once on the
 * Redis channel {@code <prefix><bayeux channel>}. Each node subscribes in Redis only to the
 * observed channels its own clients subscribe to ({@code SUBSCRIBE} for a channel,
 * {@code PSUBSCRIBE} for a wildcard subscription), re-publishes what arrives to its local
 * subscribers, and drops its own messages (the origin delivered them locally already) and any
 * second copy (a message matching two of its Redis subscriptions arrives twice: the origin's
 * sequence number tells them apart).
 * <p>
 * While Redis is away, local publishing and delivery go on; messages for the other nodes wait,
 * in order, in a bounded buffer ({@link #setBufferSize}) and are sent once Redis is back and
 * the settle delay passed ({@link #setSettleDelay}: time for the other nodes to subscribe
 * again); past that bound they are dropped and counted ({@link #getDropped()}). Lettuce
 * reconnects with back-off and the node subscribes again to its Redis channels.
 */
public class RedisCluster {
    private static final Logger LOGGER = LoggerFactory.getLogger(RedisCluster.class);
    public static final String DEFAULT_PREFIX = "bayeux:";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** How many messages from other nodes may wait for the local server. */
    static final int DELIVERY_QUEUE = 100_000;

    private final BayeuxServer bayeux;
    private final RedisURI redisURI;
    private final String nodeId = UUID.randomUUID().toString();
    private final Set<String> observed = ConcurrentHashMap.newKeySet();
    private final Set<ServerChannel> listened = ConcurrentHashMap.newKeySet();
    /** The Redis channels and patterns this node subscribes to (only touched by {@link #control}). */
    private final Set<String> wanted = ConcurrentHashMap.newKeySet();
    private final Map<String, Long> lastSeq = new HashMap<>();
    private final List<EngineListener> engineListeners = new CopyOnWriteArrayList<>();
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final Object publishLock = new Object();
    /** Messages waiting for Redis (guarded by {@link #publishLock}). */
    private final java.util.ArrayDeque<String[]> pending = new java.util.ArrayDeque<>();
    private final Object healthLock = new Object();
    private Duration settleDelay = Duration.ofSeconds(1);
    private String prefix = DEFAULT_PREFIX;
    private int bufferSize = 10_000;
    private volatile boolean connected;

    private Duration maxReconnectDelay = Duration.ofSeconds(5);
    private final AtomicLong lost = new AtomicLong();
    private final Map<String, Long> sequences = new HashMap<>();
    private ClientResources resources;
    private RedisClient client;
    private StatefulRedisConnection<String, String> publisher;
    private RedisAsyncCommands<String, String> commands;
    private StatefulRedisPubSubConnection<String, String> subscriber;
    private LocalSession session;
    private java.util.concurrent.ScheduledExecutorService control;
    private ExecutorService delivery;
    private Disposable events;
    private Hooks hooks;
    /** The histories of the shared channels, in Redis; null when the server is not this project's. */
    private volatile RedisHistory history;
    private boolean started;

    public RedisCluster(BayeuxServer bayeux, String redisURI) {
        this.bayeux = Objects.requireNonNull(bayeux, "bayeux");
        this.redisURI = RedisURI.create(Objects.requireNonNull(redisURI, "redisURI"));
    }

    public BayeuxServer getBayeuxServer() {
        return bayeux;
    }

    /** This node's id in the cluster: random, new at each start of the process. */
    public String getNodeId() {
        return nodeId;
    }

    /** The prefix of every Redis channel and key this cluster uses (default {@code bayeux:}); set before start. */
    public void setPrefix(String prefix) {
        this.prefix = Objects.requireNonNull(prefix, "prefix");
    }

    public String getPrefix() {
        return prefix;
    }

    /** How many commands wait for Redis while it is away, at most (default 10,000); set before start. */
    public void setBufferSize(int bufferSize) {
        if (bufferSize < 1) {
            throw new IllegalArgumentException("bufferSize < 1");
        }
        this.bufferSize = bufferSize;
    }

    /** The longest wait between two attempts to reach Redis again (default 5 s; from 100 ms, doubling); set before start. */
    public void setMaxReconnectDelay(Duration delay) {
        this.maxReconnectDelay = Objects.requireNonNull(delay, "delay");
    }

    /**
     * How long, once Redis is back, the messages that waited for it keep waiting, so that the
     * other nodes subscribe again first (default 1 s); set before start.
     */
    public void setSettleDelay(Duration delay) {
        this.settleDelay = Objects.requireNonNull(delay, "delay");
    }

    public synchronized void start() {
        if (started) {
            return;
        }
        started = true;
        control = Executors.newSingleThreadScheduledExecutor(task -> daemon(task, "redis-cluster-control"));
        // Messages from other nodes wait here for the local server, in order; past the bound they are lost and counted.
        delivery = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(DELIVERY_QUEUE),
                task -> daemon(task, "redis-cluster-delivery"), (task, executor) -> {
                    if (!executor.isShutdown()) {
                        lost.incrementAndGet();
                        LOGGER.warn("Redis cluster node {}: a message from another node dropped, {} waiting already", nodeId, DELIVERY_QUEUE);
                    }
                });
        resources = ClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ofMillis(100), maxReconnectDelay, 2, TimeUnit.MILLISECONDS))
                .build();
        client = RedisClient.create(resources, redisURI);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .requestQueueSize(bufferSize)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                .build());
        events = client.getResources().eventBus().get().subscribe(event -> {
            if (event instanceof ConnectionActivatedEvent) {
                changed(true);
            } else if (event instanceof ConnectionDeactivatedEvent) {
                changed(false);
            }
        });
        publisher = client.connect();
        commands = publisher.async();
        subscriber = client.connectPubSub();
        subscriber.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                java.util.function.Consumer<String> handler = handlers.get(channel);
                if (handler != null) {
                    handler.accept(message);
                } else {
                    arrived(message);
                }
            }

            @Override
            public void message(String pattern, String channel, String message) {
                arrived(message);
            }
        });
        connected = publisher.isOpen() && subscriber.isOpen();
        session = bayeux.newLocalSession("redis-cluster");
        session.handshake();
        if (bayeux instanceof BayeuxServerImpl impl) {
            history = new RedisHistory(this, impl);
            impl.histories().setEngine(history);
        }
        hooks = new Hooks();
        bayeux.addListener(hooks);
        for (ServerChannel channel : bayeux.getChannels()) {
            hooks.channelAdded(channel);
            reconcile(channel.getId());
        }
        LOGGER.info("Redis cluster node {} on {}", nodeId, redisURI);
    }

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
        delivery.shutdown();
        try {
            control.awaitTermination(2, TimeUnit.SECONDS);
            delivery.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
        events.dispose();
        subscriber.close();
        publisher.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
        session.disconnect();
        wanted.clear();
    }

    // --- observed channels

    /** Shares the channels matching {@code channel} (wildcards allowed) with the other nodes. */
    public void observeChannel(String channel) {
        ChannelId.of(channel);
        observed.add(channel);
        if (isStarted()) {
            for (ServerChannel c : bayeux.getChannels()) {
                hooks.channelAdded(c);
                reconcile(c.getId());
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
        if (isStarted()) {
            for (ServerChannel c : bayeux.getChannels()) {
                reconcile(c.getId());
            }
        }
    }

    public Set<String> getObservedChannels() {
        return Set.copyOf(observed);
    }

    /** Whether a message on {@code channelId} (not a wildcard) is shared. */
    public boolean isObserved(String channelId) {
        ChannelId id = ChannelId.of(channelId);
        if (id.isWild() || id.isMeta() || id.isService()) {
            return false;
        }
        for (String pattern : observed) {
            if (ChannelId.of(pattern).matches(id)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a subscription to {@code channelId} (perhaps a wildcard) may need messages from other nodes. */
    private boolean isRelevant(String channelId) {
        ChannelId id = ChannelId.of(channelId);
        if (!id.isWild()) {
            return isObserved(channelId);
        }
        if (id.isMeta() || id.isService()) {
            return false;
        }
        ChannelId sample = ChannelId.of(id.getParent() + "/_");
        for (String pattern : observed) {
            ChannelId p = ChannelId.of(pattern);
            // /chat/** observed and /chat/* subscribed; or /chat/room observed and /chat/* subscribed.
            if (p.equals(id) || p.matches(sample) || (!p.isWild() && id.matches(p))
                    || (p.isWild() && id.isDeepWild() && p.getId().startsWith(id.getParent() + "/"))) {
                return true;
            }
        }
        return false;
    }

    /** The Redis channel or pattern a subscription to {@code channelId} needs. */
    private String redisName(String channelId) {
        ChannelId id = ChannelId.of(channelId);
        if (!id.isWild()) {
            return prefix + channelId;
        }
        // Redis' * matches across '/': a wider pattern; what it brings reaches only matching subscribers.
        return escapeGlob(prefix + id.getParent()) + "/*";
    }

    private static String escapeGlob(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                b.append('\\');
            }
            b.append(c);
        }
        return b.toString();
    }

    /** Decides, on the control thread, whether this node subscribes in Redis for {@code channelId}. */
    private void reconcile(String channelId) {
        if (!isRelevant(channelId) && !wanted.contains(redisName(channelId))) {
            return;
        }
        if (control.isShutdown()) {
            return;
        }
        control.execute(() -> {
            String name = redisName(channelId);
            boolean pattern = ChannelId.of(channelId).isWild();
            boolean want = false;
            // Every local channel needing this Redis name (a pattern may serve /a/* and /a/**).
            for (ServerChannel channel : bayeux.getChannels()) {
                if (isRelevant(channel.getId()) && redisName(channel.getId()).equals(name) && hasRemoteSubscribers(channel)) {
                    want = true;
                    break;
                }
            }
            if (want && wanted.add(name)) {
                var async = subscriber.async();
                var future = pattern ? async.psubscribe(name) : async.subscribe(name);
                if (await(future, "subscribe " + name) && !pattern) {
                    historyReceived(channelId);
                }
            } else if (!want && wanted.remove(name)) {
                confirmed.remove("subscribe " + name);
                historyReceptionChanged();
                var async = subscriber.async();
                var future = pattern ? async.punsubscribe(name) : async.unsubscribe(name);
                if (await(future, "unsubscribe " + name)) {
                    // Redis sent nothing more for it after its reply: the next message starts a new count.
                    forget();
                }
            }
        });
    }

    /** This node receives {@code channelId} from Redis now: its clients get what was published to its history meanwhile. */
    private void historyReceived(String channelId) {
        if (history != null && bayeux instanceof BayeuxServerImpl impl && !delivery.isShutdown()) {
            delivery.execute(() -> impl.histories().received(channelId));
        }
    }

    /** This node stopped receiving some channels from Redis. */
    private void historyReceptionChanged() {
        if (history != null && bayeux instanceof BayeuxServerImpl impl && !delivery.isShutdown()) {
            delivery.execute(impl.histories()::receptionChanged);
        }
    }

    /** Whether this node receives the messages of {@code channelId} (not a wildcard) from Redis: a subscription of its own covers it. */
    boolean receives(String channelId) {
        return covered(prefix + channelId);
    }

    /** Forgets the counts of the channels no Redis subscription of this node covers any more. */
    private void forget() {
        synchronized (lastSeq) {
            lastSeq.keySet().removeIf(key -> !covered(prefix + key.substring(key.indexOf(' ') + 1)));
        }
    }

    private boolean covered(String redisChannel) {
        for (String name : wanted) {
            if (name.equals(redisChannel)) {
                return true;
            }
            if (name.endsWith("/*") && redisChannel.startsWith(name.substring(0, name.length() - 1).replace("\\", ""))) {
                return true;
            }
        }
        return false;
    }

    private boolean hasRemoteSubscribers(ServerChannel channel) {
        ServerSession own = session == null ? null : session.getServerSession();
        for (ServerSession s : channel.getSubscribers()) {
            if (s != own) {
                return true;
            }
        }
        return false;
    }

    private boolean await(java.util.concurrent.CompletionStage<?> future, String what) {
        try {
            future.toCompletableFuture().get(5, TimeUnit.SECONDS);
            confirmed.add(what);
            return true;
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception x) {
            // Redis is away: Lettuce sends it on reconnection, and subscribes again to what it had.
            LOGGER.debug("{} not confirmed yet: {}", what, x.toString());
            return false;
        }
    }

    private final Set<String> confirmed = ConcurrentHashMap.newKeySet();
    private final Map<String, java.util.function.Consumer<String>> handlers = new ConcurrentHashMap<>();

    /** Subscribes this node to a Redis channel of its own (presence, direct messages), handled by {@code handler}. */
    void subscribeDirect(String redisChannel, java.util.function.Consumer<String> handler) {
        handlers.put(redisChannel, handler);
        await(subscriber.async().subscribe(redisChannel), "subscribe " + redisChannel);
    }

    void unsubscribeDirect(String redisChannel) {
        if (handlers.remove(redisChannel) != null && subscriber.isOpen()) {
            await(subscriber.async().unsubscribe(redisChannel), "unsubscribe " + redisChannel);
        }
    }

    /** Whether {@code session} is the in-process session that re-publishes here what other nodes published. */
    public boolean isClusterSession(ServerSession session) {
        LocalSession local = this.session;
        return session != null && local != null && session == local.getServerSession();
    }

    /** The commands connection (requests queue, in order, while Redis is away). */
    RedisAsyncCommands<String, String> commands() {
        return commands;
    }

    LocalSession localSession() {
        return session;
    }

    /** Counts a message for the other nodes that Redis never took. */
    void countDropped() {
        dropped.incrementAndGet();
    }

    /**
     * The Redis channels and patterns this node is subscribed to, as last decided (a subscribe
     * confirmed by Redis, or waiting for it to come back).
     */
    public Set<String> getRedisSubscriptions() {
        return Set.copyOf(wanted);
    }

    /** Whether the Redis subscription this node needs for {@code channelId} is in place. */
    public boolean isSubscribed(String channelId) {
        String name = redisName(channelId);
        return wanted.contains(name) && confirmed.contains("subscribe " + name);
    }

    // --- messages

    private void outgoing(ServerSession from, ServerChannel channel, ServerMessage.Mutable message) {
        if (session != null && from == session.getServerSession()) {
            return;
        }
        if (history != null && bayeux instanceof BayeuxServerImpl impl && impl.histories().policy(channel.getId()) != null) {
            // Its history's script publishes it, with its position.
            return;
        }
        Map<String, Object> envelope = new LinkedHashMap<>();
        envelope.put("node", nodeId);
        envelope.put("channel", channel.getId());
        envelope.put("data", message.getData());
        synchronized (publishLock) {
            envelope.put("seq", sequences.merge(channel.getId(), 1L, Long::sum));
            String json;
            try {
                json = JSON.writeValueAsString(envelope);
            } catch (JsonProcessingException x) {
                LOGGER.warn("Message on {} not shared: {}", channel.getId(), x.toString());
                return;
            }
            String redisChannel = prefix + channel.getId();
            if (!connected || !pending.isEmpty()) {
                // Redis away, or back but the other nodes may not have subscribed again yet: wait, in order.
                if (pending.size() >= bufferSize) {
                    dropped.incrementAndGet();
                    LOGGER.debug("Message on {} dropped: {} already wait for Redis", channel.getId(), bufferSize);
                } else {
                    pending.add(new String[]{redisChannel, json});
                }
                return;
            }
            send(redisChannel, json);
        }
    }

    /** Publishes one encoded message (under {@link #publishLock}, so in order). */
    private void send(String redisChannel, String json) {
        try {
            commands.publish(redisChannel, json).whenComplete((receivers, failure) -> {
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

    /** Sends what waited while Redis was away, once the other nodes had time to subscribe again. */
    private void flush() {
        synchronized (publishLock) {
            if (!connected) {
                return;
            }
            String[] next;
            while ((next = pending.poll()) != null) {
                send(next[0], next[1]);
            }
        }
    }

    private void arrived(String json) {
        Map<?, ?> envelope;
        try {
            envelope = JSON.readValue(json, Map.class);
        } catch (JsonProcessingException x) {
            LOGGER.warn("Not a cluster message: {}", json);
            return;
        }
        RedisHistory history = this.history;
        if (envelope.containsKey("o") && history != null) {
            // A message of a history, in the order of its offsets: every node delivers it, its origin too.
            received.incrementAndGet();
            delivery.execute(() -> history.arrived(envelope));
            return;
        }
        if (!(envelope.get("node") instanceof String node) || !(envelope.get("seq") instanceof Number seq)
                || !(envelope.get("channel") instanceof String channel)) {
            // Not a channel message: e.g. a presence event still arriving on a Redis channel
            // whose handler was just removed (RedisSeti stopping).
            LOGGER.debug("Not a cluster message: {}", json);
            return;
        }
        if (nodeId.equals(node)) {
            return;
        }
        long n = seq.longValue();
        String key = node + ' ' + channel;
        synchronized (lastSeq) {
            Long last = lastSeq.get(key);
            if (last != null && n <= last) {
                duplicates.incrementAndGet();
                return;
            }
            if (last != null && n > last + 1) {
                // Lost on the way: dropped by the origin, or published while this node was not subscribed.
                lost.addAndGet(n - last - 1);
            }
            lastSeq.put(key, n);
        }
        received.incrementAndGet();
        Object data = envelope.get("data");
        delivery.execute(() -> session.getChannel(channel).publish(data));
    }

    // --- health

    /** Messages this node sent to Redis (confirmed by Redis). */
    public long getPublished() {
        return published.get();
    }

    /** Messages from other nodes delivered here. */
    public long getReceived() {
        return received.get();
    }

    /** Second copies of a message dropped here (a message matching two of this node's Redis subscriptions). */
    public long getDuplicates() {
        return duplicates.get();
    }

    /**
     * Messages from other nodes this node knows it missed: each origin numbers its messages per
     * channel, and a gap before a message that arrives is counted here (losses at the very end
     * of a channel's traffic show with its next message); and messages dropped here because
     * 100,000 were already waiting for the local server.
     */
    public long getLost() {
        return lost.get();
    }

    /** Messages for the other nodes lost: the buffer was full while Redis was away, or Redis refused them. */
    public long getDropped() {
        return dropped.get();
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
            now = up && publisher != null && publisher.isOpen() && subscriber != null && subscriber.isOpen();
            if (now == connected) {
                return;
            }
            connected = now;
        }
        if (now) {
            resubscribe();
            if (control != null && !control.isShutdown()) {
                control.schedule(this::flush, settleDelay.toMillis(), TimeUnit.MILLISECONDS);
            }
            LOGGER.info("Redis cluster node {}: Redis {} is back", nodeId, redisURI);
        } else {
            LOGGER.warn("Redis cluster node {}: Redis {} is away; local clients are still served, messages for other nodes wait (at most {})",
                    nodeId, redisURI, bufferSize);
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

    /** Subscribes again, after a reconnection, to every Redis channel and pattern this node needs (idempotent in Redis). */
    private void resubscribe() {
        if (control == null || control.isShutdown()) {
            return;
        }
        control.execute(() -> {
            var async = subscriber.async();
            for (String name : List.copyOf(wanted)) {
                boolean pattern = name.endsWith("/*");
                await(pattern ? async.psubscribe(name) : async.subscribe(name), "subscribe " + name);
            }
            for (String name : List.copyOf(handlers.keySet())) {
                await(async.subscribe(name), "subscribe " + name);
            }
            // What was published to the histories while this node did not hear Redis.
            for (String name : List.copyOf(wanted)) {
                if (!name.endsWith("/*") && name.startsWith(prefix)) {
                    historyReceived(name.substring(prefix.length()));
                }
            }
        });
    }

    private static Thread daemon(Runnable task, String name) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }

    @Override
    public String toString() {
        return "RedisCluster[" + nodeId + "@" + redisURI + "]";
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
            if (isStarted()) {
                reconcile(channelId);
            }
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
    }
}
