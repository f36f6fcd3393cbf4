package io.bayeux.cluster.redis;

import io.bayeux.api.ChannelId;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerSession;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;

/**
 * Keeps a node's Redis subscriptions in step with its clients' subscriptions: a node subscribes
 * in Redis only to the observed channels that a session other than the cluster's own subscribes
 * to ({@code SUBSCRIBE} for a channel, {@code PSUBSCRIBE} for a wildcard), and unsubscribes once
 * none does. Each decision runs on the control thread, one at a time, and waits there for Redis'
 * reply (at most 5 s; while Redis is away Lettuce sends it on reconnection).
 *
 * <p>Thread-safe: {@link #reconcile} may be called on any thread; the subscriptions are only
 * changed on the control thread and read from a concurrent set.
 */
final class SubscriptionReconciler {
    /** Told, on the control thread, what this node receives from Redis. */
    interface Reception {
        /** Redis confirmed that this node receives {@code channelId} (not a wildcard) now. */
        void received(String channelId);

        /** This node is about to stop receiving a channel or pattern. */
        void receptionChanged();

        /** Redis confirmed an unsubscribe: it sends nothing more for it. */
        void unsubscribed();
    }

    private final BayeuxServer bayeux;
    private final ObservedChannels observed;
    private final RedisConnection connection;
    private final ScheduledExecutorService control;
    private final Supplier<ServerSession> own;
    private final Reception reception;
    /** The Redis channels and patterns this node subscribes to; only changed on {@link #control}. */
    private final Set<String> wanted = ConcurrentHashMap.newKeySet();

    /**
     * @param own the cluster's own session, whose subscriptions need nothing from Redis
     */
    SubscriptionReconciler(BayeuxServer bayeux, ObservedChannels observed, RedisConnection connection,
                           ScheduledExecutorService control, Supplier<ServerSession> own, Reception reception) {
        this.bayeux = bayeux;
        this.observed = observed;
        this.connection = connection;
        this.control = control;
        this.own = own;
        this.reception = reception;
    }

    /** Decides, on the control thread, whether this node subscribes in Redis for {@code channelId}. */
    void reconcile(String channelId) {
        if (!observed.isRelevant(channelId) && !wanted.contains(observed.redisName(channelId))) {
            return;
        }
        if (control.isShutdown()) {
            return;
        }
        control.execute(() -> {
            String name = observed.redisName(channelId);
            boolean pattern = ChannelId.of(channelId).isWild();
            boolean want = false;
            // Every local channel needing this Redis name (a pattern may serve /a/* and /a/**).
            for (ServerChannel channel : bayeux.getChannels()) {
                if (observed.isRelevant(channel.getId()) && observed.redisName(channel.getId()).equals(name)
                        && hasRemoteSubscribers(channel)) {
                    want = true;
                    break;
                }
            }
            if (want && wanted.add(name)) {
                if (connection.subscribe(name, pattern) && !pattern) {
                    reception.received(channelId);
                }
            } else if (!want && wanted.remove(name)) {
                reception.receptionChanged();
                if (connection.unsubscribe(name, pattern)) {
                    // Redis sent nothing more for it after its reply: the next message starts a new count.
                    reception.unsubscribed();
                }
            }
        });
    }

    /** Subscribes again, after a reconnection, to every Redis channel and pattern this node needs (idempotent in Redis). */
    void resubscribe() {
        if (control.isShutdown()) {
            return;
        }
        control.execute(() -> {
            for (String name : List.copyOf(wanted)) {
                connection.subscribe(name, ObservedChannels.isPattern(name));
            }
            for (String name : connection.directChannels()) {
                connection.subscribe(name, false);
            }
            // What was published to the histories while this node did not hear Redis.
            String prefix = observed.prefix();
            for (String name : List.copyOf(wanted)) {
                if (!ObservedChannels.isPattern(name) && name.startsWith(prefix)) {
                    reception.received(name.substring(prefix.length()));
                }
            }
        });
    }

    /** Whether this node receives the messages of {@code channelId} (not a wildcard) from Redis: a subscription of its own covers it. */
    boolean receives(String channelId) {
        String redisChannel = observed.redisChannel(channelId);
        for (String name : wanted) {
            if (ObservedChannels.covers(name, redisChannel)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the Redis subscription this node needs for {@code channelId} is in place (confirmed by Redis). */
    boolean isSubscribed(String channelId) {
        String name = observed.redisName(channelId);
        return wanted.contains(name) && connection.isConfirmed(name);
    }

    /** The Redis channels and patterns this node subscribes to, as last decided. */
    Set<String> subscriptions() {
        return Set.copyOf(wanted);
    }

    private boolean hasRemoteSubscribers(ServerChannel channel) {
        ServerSession self = own.get();
        for (ServerSession s : channel.getSubscribers()) {
            if (s != self) {
                return true;
            }
        }
        return false;
    }
}
