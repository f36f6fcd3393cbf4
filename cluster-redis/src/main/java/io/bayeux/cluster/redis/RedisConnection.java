package io.bayeux.cluster.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.event.connection.ConnectionDeactivatedEvent;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

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

    private final ClientResources resources;
    private final RedisClient client;
    private final Disposable events;
    private final StatefulRedisConnection<String, String> publisher;
    private final RedisAsyncCommands<String, String> commands;
    private final StatefulRedisPubSubConnection<String, String> subscriber;
    /** The direct channels (presence, messages to one node) and their handlers. */
    private final Map<String, Consumer<String>> handlers = new ConcurrentHashMap<>();
    /** What Redis confirmed: {@code "subscribe NAME"}, {@code "unsubscribe NAME"}. */
    private final Set<String> confirmed = ConcurrentHashMap.newKeySet();

    /**
     * Connects both. Once connected, Lettuce reconnects in the background whenever Redis goes
     * away; if Redis cannot be reached now, this throws Lettuce's
     * {@link io.lettuce.core.RedisConnectionException} and leaves nothing open.
     *
     * @param arrived told each message but those of the direct channels
     * @param changed told when Lettuce saw a connection go up ({@code true}) or down; {@link #isOpen()} says whether both are up
     */
    RedisConnection(RedisConfig config, Consumer<String> arrived, Consumer<Boolean> changed) {
        resources = ClientResources.builder()
                .reconnectDelay(Delay.exponential(Duration.ofMillis(100), config.maxReconnectDelay(), 2, TimeUnit.MILLISECONDS))
                .build();
        client = RedisClient.create(resources, config.redisURI());
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .requestQueueSize(config.bufferSize())
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                .build());
        events = client.getResources().eventBus().get().subscribe(event -> {
            if (event instanceof ConnectionActivatedEvent) {
                changed.accept(true);
            } else if (event instanceof ConnectionDeactivatedEvent) {
                changed.accept(false);
            }
        });
        StatefulRedisConnection<String, String> connected = null;
        try {
            connected = client.connect();
            subscriber = client.connectPubSub();
        } catch (RuntimeException x) {
            // Redis not there at start (Lettuce reconnects only what it once connected): nothing stays open.
            if (connected != null) {
                connected.close();
            }
            shutdown();
            throw x;
        }
        publisher = connected;
        commands = publisher.async();
        subscriber.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                Consumer<String> handler = handlers.get(channel);
                if (handler != null) {
                    handler.accept(message);
                } else {
                    arrived.accept(message);
                }
            }

            @Override
            public void message(String pattern, String channel, String message) {
                arrived.accept(message);
            }
        });
    }

    /** Whether both connections are up. */
    boolean isOpen() {
        return publisher != null && publisher.isOpen() && subscriber != null && subscriber.isOpen();
    }

    /** The commands connection (requests queue, in order, while Redis is away). */
    RedisAsyncCommands<String, String> commands() {
        return commands;
    }

    /** {@code SUBSCRIBE} or, for a pattern, {@code PSUBSCRIBE} {@code name}; returns whether Redis confirmed it. */
    boolean subscribe(String name, boolean pattern) {
        RedisPubSubAsyncCommands<String, String> async = subscriber.async();
        return await(pattern ? async.psubscribe(name) : async.subscribe(name), "subscribe " + name);
    }

    /** {@code UNSUBSCRIBE} or {@code PUNSUBSCRIBE}; returns whether Redis confirmed it. */
    boolean unsubscribe(String name, boolean pattern) {
        confirmed.remove("subscribe " + name);
        RedisPubSubAsyncCommands<String, String> async = subscriber.async();
        return await(pattern ? async.punsubscribe(name) : async.unsubscribe(name), "unsubscribe " + name);
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
