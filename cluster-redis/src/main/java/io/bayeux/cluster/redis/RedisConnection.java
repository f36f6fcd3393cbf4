package io.bayeux.cluster.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.event.connection.ConnectionDeactivatedEvent;
import io.lettuce.core.event.connection.ConnectionEvent;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A node's two Lettuce connections to Redis, opened together and closed together: one for
 * commands (requests queue, in order, up to the buffer size while Redis is away), one for
 * pub/sub. Lettuce reconnects by itself, with exponential back-off from 100 ms up to the
 * config's maximum, and subscribes again to what the pub/sub connection had.
 *
 * <p>On a Redis Cluster ({@link RedisConfig.Mode#CLUSTER}) the channels are shard channels:
 * {@link #publish} is {@code SPUBLISH}, {@link #subscribe} of a channel {@code SSUBSCRIBE}, so a
 * message touches only the shard that owns its channel's slot (a pattern stays a classic
 * {@code PSUBSCRIBE}, which sharded messages do not reach). Lettuce follows the topology
 * (refreshed periodically and on redirections, reconnections and failures) and subscribes again
 * on a connection that comes back; a shard channel whose slot moved, or whose master was
 * replaced, is subscribed again by the owner of this connection when told ({@code regained}).
 *
 * <p>Messages on a direct channel ({@link #subscribeDirect}) go to its handler; all others, and
 * everything matched by a pattern, to the {@code arrived} consumer. Both run on Lettuce's event
 * loop and must not block.
 *
 * <p>Thread-safe. The connection fields are final but set while Lettuce already runs: a
 * connection event that arrives before the constructor returns sees {@link #isOpen()} false.
 */
final class RedisConnection implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(RedisConnection.class);
    /** How long a subscribe or unsubscribe waits for Redis' reply before it counts as not confirmed. */
    private static final Duration CONFIRM_WAIT = Duration.ofSeconds(5);

    /** How often a cluster's topology is read again, whatever else triggers a refresh. */
    static final Duration TOPOLOGY_REFRESH = Duration.ofSeconds(10);
    /**
     * How long a command on a cluster waits for its answer: a command queued for a master that
     * died stays there (the node stays in the topology, failed), so it fails after this and is
     * counted, as the other nodes count the gap. On one server commands wait for Redis to return.
     */
    static final Duration CLUSTER_COMMAND_TIMEOUT = Duration.ofSeconds(5);

    private final ClientResources resources;
    private final boolean sharded;
    private final AbstractRedisClient client;
    private final Disposable events;
    private final StatefulConnection<String, String> publisher;
    private final RedisClusterAsyncCommands<String, String> commands;
    private final StatefulRedisPubSubConnection<String, String> subscriber;
    /** The direct channels (presence, messages to one node) and their handlers. */
    private final Map<String, Consumer<String>> handlers = new ConcurrentHashMap<>();
    /** The patterns already warned about on a cluster, once each. */
    private final Set<String> warnedPatterns = ConcurrentHashMap.newKeySet();
    /** What Redis confirmed: {@code "subscribe NAME"}, {@code "unsubscribe NAME"}. */
    private final Set<String> confirmed = ConcurrentHashMap.newKeySet();

    /**
     * Connects both. Once connected, Lettuce reconnects in the background whenever Redis goes
     * away; if Redis cannot be reached now, this throws Lettuce's
     * {@link io.lettuce.core.RedisConnectionException} and leaves nothing open.
     *
     * @param arrived told each message but those of the direct channels
     * @param changed  told when Lettuce saw a connection go up ({@code true}) or down, or a
     *                 cluster's topology change ({@code true}); {@link #isOpen()} says whether both are up
     * @param regained told when a cluster's subscriptions may need making again: its topology
     *                 changed (a replica promoted, a slot moved), or Redis ended a shard
     *                 subscription by itself (its slot moved away)
     */
    RedisConnection(RedisConfig config, Consumer<String> arrived, Consumer<Boolean> changed, Runnable regained) {
        resources = ClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ofMillis(100), config.maxReconnectDelay(), 2, TimeUnit.MILLISECONDS))
                .build();
        sharded = config.mode() == RedisConfig.Mode.CLUSTER;
        client = sharded ? clusterClient(resources, config) : standaloneClient(resources, config);
        List<RedisURI> sentinels = sharded ? List.of() : config.redisURI().getSentinels();
        events = client.getResources().eventBus().get().subscribe(event -> {
            if (event instanceof ClusterTopologyChangedEvent) {
                changed.accept(true);
                regained.run();
            } else if (event instanceof ConnectionEvent connection && isSentinel(connection.remoteAddress(), sentinels)) {
                // Lettuce asks a Sentinel for the master at each connection and reconnection, on a
                // connection of its own that it closes: its going down is not Redis going away
                // (told on another thread, it could come after the main connections were back).
                LOGGER.debug("Sentinel connection event {}", event);
            } else if (event instanceof ConnectionActivatedEvent) {
                changed.accept(true);
            } else if (event instanceof ConnectionDeactivatedEvent) {
                changed.accept(false);
            }
        });
        StatefulConnection<String, String> connected = null;
        try {
            if (client instanceof RedisClusterClient cluster) {
                StatefulRedisClusterConnection<String, String> c = cluster.connect();
                connected = c;
                commands = c.async();
                StatefulRedisClusterPubSubConnection<String, String> pubSub = cluster.connectPubSub();
                // A shard channel is subscribed on the connection to the node that owns its slot: its messages come from there.
                pubSub.setNodeMessagePropagation(true);
                pubSub.addListener(new RedisClusterPubSubAdapter<>() {
                    @Override
                    public void message(RedisClusterNode node, String channel, String message) {
                        dispatch(channel, message, arrived);
                    }

                    @Override
                    public void message(RedisClusterNode node, String pattern, String channel, String message) {
                        arrived.accept(message);
                    }

                    @Override
                    public void smessage(RedisClusterNode node, String channel, String message) {
                        dispatch(channel, message, arrived);
                    }

                    @Override
                    public void sunsubscribed(RedisClusterNode node, String channel, long count) {
                        // Ours, or Redis' own when the slot moved away: a wanted channel is subscribed again.
                        confirmed.remove("subscribe " + channel);
                        regained.run();
                    }
                });
                subscriber = pubSub;
            } else {
                RedisClient standalone = (RedisClient) client;
                StatefulRedisConnection<String, String> c = standalone.connect();
                connected = c;
                commands = c.async();
                subscriber = standalone.connectPubSub();
                subscriber.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(String channel, String message) {
                        dispatch(channel, message, arrived);
                    }

                    @Override
                    public void message(String pattern, String channel, String message) {
                        arrived.accept(message);
                    }
                });
            }
        } catch (RuntimeException x) {
            // Redis not there at start (Lettuce reconnects only what it once connected): nothing stays open.
            if (connected != null) {
                connected.close();
            }
            shutdown();
            throw x;
        }
        publisher = connected;
    }

    private static RedisClient standaloneClient(ClientResources resources, RedisConfig config) {
        RedisClient client = RedisClient.create(resources, config.redisURI());
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .requestQueueSize(config.bufferSize())
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                .build());
        return client;
    }

    private static RedisClusterClient clusterClient(ClientResources resources, RedisConfig config) {
        RedisClusterClient client = RedisClusterClient.create(resources, config.seeds());
        client.setOptions(ClusterClientOptions.builder()
                .autoReconnect(true)
                .requestQueueSize(config.bufferSize())
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(CLUSTER_COMMAND_TIMEOUT))
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enablePeriodicRefresh(TOPOLOGY_REFRESH)
                        .enableAllAdaptiveRefreshTriggers()
                        .adaptiveRefreshTriggersTimeout(Duration.ofMillis(500))
                        .refreshTriggersReconnectAttempts(2)
                        .build())
                .build());
        return client;
    }

    private void dispatch(String channel, String message, Consumer<String> arrived) {
        Consumer<String> handler = handlers.get(channel);
        if (handler != null) {
            handler.accept(message);
        } else {
            arrived.accept(message);
        }
    }

    /** Whether the channels are a Redis Cluster's shard channels ({@code SPUBLISH}, {@code SSUBSCRIBE}). */
    boolean isSharded() {
        return sharded;
    }

    /** Whether both connections are up. */
    boolean isOpen() {
        return publisher != null && publisher.isOpen() && subscriber != null && subscriber.isOpen();
    }

    /** Whether {@code remote} is one of {@code sentinels}. */
    private static boolean isSentinel(SocketAddress remote, List<RedisURI> sentinels) {
        if (!(remote instanceof InetSocketAddress address)) {
            return false;
        }
        for (RedisURI sentinel : sentinels) {
            if (sentinel.getPort() == address.getPort() && (sentinel.getHost().equals(address.getHostString())
                    || address.getAddress() != null && sentinel.getHost().equals(address.getAddress().getHostAddress()))) {
                return true;
            }
        }
        return false;
    }

    /** The commands connection (requests queue, in order, while Redis is away; on a cluster, routed by slot). */
    RedisClusterAsyncCommands<String, String> commands() {
        return commands;
    }

    /** {@code PUBLISH}, or {@code SPUBLISH} on a cluster: its future completes with Redis' reply. */
    CompletionStage<Long> publish(String channel, String message) {
        return sharded ? commands.spublish(channel, message) : commands.publish(channel, message);
    }

    /**
     * {@code SUBSCRIBE} ({@code SSUBSCRIBE} on a cluster) or, for a pattern, {@code PSUBSCRIBE}
     * {@code name}; returns whether Redis confirmed it.
     */
    boolean subscribe(String name, boolean pattern) {
        if (sharded && pattern && warnedPatterns.add(name)) {
            LOGGER.warn("{}: a wildcard subscription on a Redis Cluster gets no other node's messages (they are SPUBLISHed to shard channels,"
                    + " which PSUBSCRIBE does not match); its local messages still reach it", name);
        }
        RedisPubSubAsyncCommands<String, String> async = subscriber.async();
        return await(pattern ? async.psubscribe(name) : sharded ? async.ssubscribe(name) : async.subscribe(name), "subscribe " + name);
    }

    /** {@code UNSUBSCRIBE} ({@code SUNSUBSCRIBE} on a cluster) or {@code PUNSUBSCRIBE}; returns whether Redis confirmed it. */
    boolean unsubscribe(String name, boolean pattern) {
        confirmed.remove("subscribe " + name);
        RedisPubSubAsyncCommands<String, String> async = subscriber.async();
        return await(pattern ? async.punsubscribe(name) : sharded ? async.sunsubscribe(name) : async.unsubscribe(name), "unsubscribe " + name);
    }

    /** Whether Redis confirmed the last subscribe to {@code name}. */
    boolean isConfirmed(String name) {
        return confirmed.contains("subscribe " + name);
    }

    /** Subscribes to a Redis channel of the node's own (presence, direct messages), handled by {@code handler}. */
    void subscribeDirect(String redisChannel, Consumer<String> handler) {
        handlers.put(redisChannel, handler);
        subscribe(redisChannel, false);
    }

    void unsubscribeDirect(String redisChannel) {
        if (handlers.remove(redisChannel) != null && subscriber.isOpen()) {
            unsubscribe(redisChannel, false);
        }
    }

    /** The direct channels subscribed to, for subscribing again after a reconnection. */
    List<String> directChannels() {
        return List.copyOf(handlers.keySet());
    }

    private boolean await(CompletionStage<?> future, String what) {
        try {
            future.toCompletableFuture().get(CONFIRM_WAIT.toMillis(), TimeUnit.MILLISECONDS);
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

    /** Closes both connections and Lettuce's threads, waiting for them at most about 2 s each. */
    @Override
    public void close() {
        subscriber.close();
        publisher.close();
        shutdown();
    }

    private void shutdown() {
        events.dispose();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
}
