package io.bayeux.cluster.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Where {@link RedisSeti} keeps presence in Redis, and what it sends there: each node's users in
 * the set {@code <prefix>presence:<nodeId>} (expiring after the TTL unless refreshed), changes
 * announced on {@code <prefix>presence} as {@code {"node", "userId", "present"}}, messages for a
 * user on another node on that node's channel {@code <prefix>seti:<nodeId>} as
 * {@code {"userId", "channel", "data"}}.
 *
 * <p>Thread-safe (immutable; Lettuce's connection is). The blocking reads wait at most
 * {@value #WAIT_SECONDS} s per command.
 */
final class PresenceStore {
    private static final Logger LOGGER = LoggerFactory.getLogger(PresenceStore.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    static final int WAIT_SECONDS = 5;

    private final RedisCluster cluster;
    private final Duration ttl;

    PresenceStore(RedisCluster cluster, Duration ttl) {
        this.cluster = cluster;
        this.ttl = ttl;
    }

    /** The channel presence changes are announced on. */
    String channel() {
        return cluster.getPrefix() + "presence";
    }

    /** The set of {@code node}'s users. */
    String key(String node) {
        return cluster.getPrefix() + "presence:" + node;
    }

    /** {@code node}'s channel for messages to its users. */
    String setiChannel(String node) {
        return cluster.getPrefix() + "seti:" + node;
    }

    /** Queues (waiting for no answer) the change of {@code userId}'s presence on this node, and its announcement. */
    void announce(String userId, boolean present) {
        RedisClusterAsyncCommands<String, String> commands = cluster.commands();
        String key = key(cluster.getNodeId());
        if (present) {
            commands.sadd(key, userId);
            commands.pexpire(key, ttl.toMillis());
        } else {
            commands.srem(key, userId);
        }
        publish(channel(), event(userId, present));
    }

    /** Removes this node's set and announces that {@code users} left, if Redis is there. */
    void leave(Collection<String> users) {
        if (cluster.isConnected()) {
            RedisClusterAsyncCommands<String, String> commands = cluster.commands();
            commands.del(key(cluster.getNodeId()));
            for (String userId : users) {
                publish(channel(), event(userId, false));
            }
        }
    }

    /** Publishes {@code json}, counting it as dropped if Redis never takes it. */
    void publish(String redisChannel, String json) {
        try {
            cluster.publish(redisChannel, json).whenComplete((n, failure) -> {
                if (failure != null) {
                    cluster.countDropped();
                }
            });
        } catch (RuntimeException x) {
            cluster.countDropped();
        }
    }

    /** A message for {@code userId}'s sessions on another node, or null if {@code data} is not encodable. */
    String message(String userId, String channel, Object data) {
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("userId", userId);
        message.put("channel", channel);
        message.put("data", data);
        return json(message);
    }

    private String event(String userId, boolean present) {
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("node", cluster.getNodeId());
        event.put("userId", userId);
        event.put("present", present);
        return json(event);
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException x) {
            LOGGER.warn("Not encodable: {}", x.toString());
            return null;
        }
    }

    /** The JSON object that arrived, or null if it is not one. */
    static Map<?, ?> parse(String json) {
        try {
            return JSON.readValue(json, Map.class);
        } catch (JsonProcessingException x) {
            return null;
        }
    }

    /**
     * Makes this node's set hold {@code local}'s users, read again before removing any (a
     * removal lost while Redis was away is made good here), and refreshes its TTL.
     */
    void refresh(Supplier<Set<String>> local) throws Exception {
        RedisClusterAsyncCommands<String, String> commands = cluster.commands();
        String own = key(cluster.getNodeId());
        String[] users = local.get().toArray(String[]::new);
        if (users.length > 0) {
            commands.sadd(own, users);
            commands.pexpire(own, ttl.toMillis()).get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
        Set<String> stale = new HashSet<>(commands.smembers(own).get(WAIT_SECONDS, TimeUnit.SECONDS));
        stale.removeAll(local.get());
        if (!stale.isEmpty()) {
            commands.srem(own, stale.toArray(String[]::new)).get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
    }

    /** The users of every other node whose set has not expired, by node id. */
    Map<String, Set<String>> readOthers() throws Exception {
        RedisClusterAsyncCommands<String, String> commands = cluster.commands();
        Map<String, Set<String>> snapshot = new HashMap<>();
        String prefix = key("");
        ScanCursor cursor = ScanCursor.INITIAL;
        int rounds = 0;
        do {
            KeyScanCursor<String> page = commands.scan(cursor, ScanArgs.Builder.matches(ObservedChannels.escapeGlob(prefix) + "*").limit(500))
                    .get(WAIT_SECONDS, TimeUnit.SECONDS);
            for (String key : page.getKeys()) {
                String node = key.substring(prefix.length());
                if (!node.equals(cluster.getNodeId())) {
                    snapshot.put(node, new HashSet<>(commands.smembers(key).get(WAIT_SECONDS, TimeUnit.SECONDS)));
                }
            }
            cursor = page;
        } while (!cursor.isFinished() && ++rounds < 10_000);
        return snapshot;
    }
}
