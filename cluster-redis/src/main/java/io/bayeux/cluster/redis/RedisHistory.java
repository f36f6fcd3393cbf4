package io.bayeux.cluster.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.bayeux.api.Position;
import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.server.spi.HistoryEngine;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Channel histories kept in Redis, for the channels a {@link RedisCluster} shares: each channel
 * has a hash (its epoch, its last offset, why old messages went) and a stream of its messages
 * (at most the policy's size, each entry stamped with Redis' time so that reads skip those past
 * the ttl), both under one hash tag. A publish is one script: the next offset, the stream entry
 * and the {@code PUBLISH} of the message with its position, so every node gets the channel's
 * messages in the order of their offsets, its own too; it delivers them to its clients from
 * there. A client that reconnects to another node recovers from the same stream.
 */
final class RedisHistory implements HistoryEngine {
    private static final Logger LOGGER = LoggerFactory.getLogger(RedisHistory.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** {@link #PUBLISH}'s answer to a number of the node's it applied already (a message sent again). */
    private static final String APPLIED = "applied";
    /** How long a read may wait for Redis. */
    static final Duration READ_TIMEOUT = Duration.ofSeconds(5);
    /** A history's hash outlives its messages this long (or its ttl if longer): its epoch and offsets stay. */
    static final Duration META_RETENTION = Duration.ofHours(1);

    private static final String EXPIRE_HEAD = """
            local function expireHead(meta, stream, oldest)
              while true do
                local head = redis.call('XRANGE', stream, '-', '+', 'COUNT', 1)
                if #head == 0 then return end
                local fields = head[1][2]
                local t = nil
                for i = 1, #fields, 2 do
                  if fields[i] == 't' then t = tonumber(fields[i + 1]) end
                end
                if t == nil or t >= oldest then return end
                redis.call('XDEL', stream, head[1][1])
                redis.call('HSET', meta, 'evicted', 'expired')
              end
            end
            local function nowMillis()
              local t = redis.call('TIME')
              return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
            end
            local function epochOf(meta, stream, candidate, base, metaTtl)
              local epoch = redis.call('HGET', meta, 'epoch')
              if not epoch then
                epoch = candidate
                redis.call('HSET', meta, 'epoch', epoch, 'top', base, 'evicted', 'trimmed')
                redis.call('DEL', stream)
                redis.call('PEXPIRE', meta, metaTtl)
              end
              return epoch
            end
            """;

    /**
     * KEYS: meta, stream. ARGV: size, ttl ms, epoch candidate, base offset - 1, meta ttl ms, Redis
     * channel, channel as JSON, payload JSON, origin node ('' for none), the origin's number of
     * this publish: one already applied (a publish sent again) is not applied twice.
     */
    private static final String PUBLISH = EXPIRE_HEAD + """
            local meta, stream = KEYS[1], KEYS[2]
            local now = nowMillis()
            local epoch = epochOf(meta, stream, ARGV[3], ARGV[4], ARGV[5])
            if ARGV[9] ~= '' then
              local applied = redis.call('HGET', meta, 'n:' .. ARGV[9])
              if applied and tonumber(applied) >= tonumber(ARGV[10]) then return 'applied' end
              redis.call('HSET', meta, 'n:' .. ARGV[9], ARGV[10])
            end
            local offset = string.format('%d', redis.call('HINCRBY', meta, 'top', 1))
            if redis.call('XLEN', stream) >= tonumber(ARGV[1]) then
              redis.call('HSET', meta, 'evicted', 'trimmed')
            end
            redis.call('XADD', stream, 'MAXLEN', ARGV[1], offset .. '-0', 't', string.format('%d', now), 'm', ARGV[8])
            expireHead(meta, stream, now - tonumber(ARGV[2]))
            redis.call('PEXPIRE', stream, ARGV[2])
            redis.call('PEXPIRE', meta, ARGV[5])
            redis.call('PUBLISH', ARGV[6], '{"o":' .. offset .. ',"e":"' .. epoch .. '","c":' .. ARGV[7] .. ',"m":' .. ARGV[8] .. '}')
            return offset
            """;

    /** KEYS: meta, stream. ARGV: start id ('-' for all, 'none'), ttl ms, epoch candidate, base offset - 1, meta ttl ms. */
    private static final String READ = EXPIRE_HEAD + """
            local meta, stream = KEYS[1], KEYS[2]
            local now = nowMillis()
            local epoch = epochOf(meta, stream, ARGV[3], ARGV[4], ARGV[5])
            expireHead(meta, stream, now - tonumber(ARGV[2]))
            local top = redis.call('HGET', meta, 'top')
            local evicted = redis.call('HGET', meta, 'evicted') or 'trimmed'
            local head = redis.call('XRANGE', stream, '-', '+', 'COUNT', 1)
            local first = 'none'
            if #head > 0 then first = head[1][1] end
            local result = {epoch, top, first, evicted}
            if ARGV[1] ~= 'none' then
              for _, entry in ipairs(redis.call('XRANGE', stream, ARGV[1], '+')) do
                local fields = entry[2]
                for i = 1, #fields, 2 do
                  if fields[i] == 'm' then
                    table.insert(result, entry[1])
                    table.insert(result, fields[i + 1])
                  end
                end
              end
            end
            return result
            """;

    private final RedisCluster cluster;
    private final BayeuxServerImpl server;
    private final SecureRandom random = new SecureRandom();
    /** {@link #PUBLISH}, with {@code SPUBLISH} on a Redis Cluster: its channel shares the hash tag of the keys, so one slot. */
    private final String publishScript;
    private volatile String publishSha;

    RedisHistory(RedisCluster cluster, BayeuxServerImpl server) {
        this.cluster = cluster;
        this.server = server;
        this.publishScript = cluster.isSharded() ? PUBLISH.replace("redis.call('PUBLISH'", "redis.call('SPUBLISH'") : PUBLISH;
    }

    @Override
    public boolean handles(String channel) {
        return cluster.isObserved(channel);
    }

    @Override
    public boolean receives(String channel) {
        return cluster.receives(channel);
    }

    private String metaKey(String channel) {
        return cluster.getPrefix() + "history:{" + channel + "}:meta";
    }

    private String streamKey(String channel) {
        return cluster.getPrefix() + "history:{" + channel + "}:stream";
    }

    private String newEpoch() {
        return Long.toString(random.nextLong() >>> 16, 36);
    }

    private static String base() {
        return Long.toString(System.currentTimeMillis() * 1000 - 1);
    }

    private static String metaTtl(HistoryPolicy policy) {
        return Long.toString(Math.max(META_RETENTION.toMillis(), policy.ttl().toMillis()));
    }

    @Override
    public void publish(String channel, ServerMessage message, HistoryPolicy policy) {
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("data", message.getData());
        Map<String, Object> ext = message.getExt();
        if (ext != null && !ext.isEmpty()) {
            payload.put("ext", ext);
        }
        String[] keys = {metaKey(channel), streamKey(channel)};
        String[] args;
        try {
            args = new String[]{Integer.toString(policy.size()), Long.toString(policy.ttl().toMillis()), newEpoch(), base(), metaTtl(policy),
                    cluster.redisChannel(channel), JSON.writeValueAsString(channel), JSON.writeValueAsString(payload), "", "0"};
        } catch (JsonProcessingException x) {
            LOGGER.warn("Message on {} not published: {}", channel, x.toString());
            cluster.countDropped();
            return;
        }
        if (cluster.followsFailovers()) {
            // In turn with the node's messages: after a failover, sent again (once the new master is known) in order;
            // the script applies each number of this node once.
            cluster.submit(channel, (order, attempt) -> {
                String[] numbered = args.clone();
                numbered[8] = cluster.getNodeId();
                numbered[9] = Long.toString(order);
                return run(keys, numbered, false).thenApply(reply -> {
                    if (attempt == 1 && APPLIED.equals(reply)) {
                        // Never sent before, yet a later one of this node's went first: the script refuses it.
                        lost(channel, new IllegalStateException("a later message of this node reached Redis first"));
                    }
                    return reply;
                });
            }, failure -> lost(channel, failure));
            return;
        }
        try {
            run(keys, args, true).whenComplete((offset, failure) -> {
                if (failure != null) {
                    lost(channel, failure);
                }
            });
        } catch (RuntimeException x) {
            // Lettuce's request queue is full while Redis is away.
            lost(channel, x);
        }
    }

    /** A publish Redis refused or never took: counted with the node's dropped messages ({@link RedisCluster#getDropped()}) and logged. */
    private void lost(String channel, Throwable failure) {
        cluster.countDropped();
        LOGGER.warn("Message on {} lost: Redis did not take it ({})", channel, failure.toString());
    }

    /**
     * The publish script by its SHA, or whole (and loaded for the next ones) when none is known;
     * when Redis does not know it (restarted, or a replica promoted), the SHA is forgotten and,
     * with {@code reload}, this one sent whole at once (otherwise its failure says so, and the
     * caller sends it again).
     */
    private CompletionStage<String> run(String[] keys, String[] args, boolean reload) {
        RedisClusterAsyncCommands<String, String> commands = cluster.commands();
        String sha = publishSha;
        if (sha == null) {
            CompletionStage<String> result = commands.eval(publishScript, ScriptOutputType.VALUE, keys, args);
            commands.scriptLoad(publishScript).thenAccept(loaded -> publishSha = loaded);
            return result;
        }
        return commands.<String>evalsha(sha, ScriptOutputType.VALUE, keys, args).exceptionallyCompose(failure -> {
            if (failure instanceof RedisNoScriptException || failure.getCause() instanceof RedisNoScriptException) {
                if (!reload) {
                    // Sent again by the caller in its turn: until then, nothing after it may go (as a whole script, it would go first).
                    if (publishSha != null) {
                        LOGGER.info("Redis does not know the history script (a new master?): this node's messages are held and sent again in order");
                    }
                    cluster.holdOutbox();
                }
                publishSha = null;
                if (reload) {
                    return run(keys, args, false);
                }
            }
            return CompletableFuture.failedStage(failure);
        });
    }

    @Override
    public Slice read(String channel, long after, HistoryPolicy policy) {
        String start = after == Long.MAX_VALUE ? "none" : after == Long.MIN_VALUE ? "-" : (after + 1) + "-0";
        String[] keys = {metaKey(channel), streamKey(channel)};
        String[] args = {start, Long.toString(policy.ttl().toMillis()), newEpoch(), base(), metaTtl(policy)};
        List<Object> result;
        try {
            result = cluster.commands().<List<Object>>eval(READ, ScriptOutputType.MULTI, keys, args)
                    .get(READ_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading the history of " + channel, x);
        } catch (ExecutionException | TimeoutException x) {
            throw new IllegalStateException("cannot read the history of " + channel + " from Redis: " + x, x);
        }
        String epoch = String.valueOf(result.get(0));
        long top = Long.parseLong(String.valueOf(result.get(1)));
        String firstId = String.valueOf(result.get(2));
        long first = "none".equals(firstId) ? top + 1 : offsetOf(firstId);
        String evicted = String.valueOf(result.get(3));
        List<Entry> entries = new ArrayList<>((result.size() - 4) / 2);
        for (int i = 4; i + 1 < result.size(); i += 2) {
            ServerMessage.Mutable message = decode(channel, String.valueOf(result.get(i + 1)));
            if (message != null) {
                entries.add(new Entry(offsetOf(String.valueOf(result.get(i))), message));
            }
        }
        return new Slice(epoch, top, first, evicted, entries);
    }

    private static long offsetOf(String streamId) {
        int dash = streamId.indexOf('-');
        return Long.parseLong(dash < 0 ? streamId : streamId.substring(0, dash));
    }

    /** A message of {@code channel} as the publish script kept it ({@code {"data":..,"ext":..}}), or null. */
    private ServerMessage.Mutable decode(String channel, String payload) {
        try {
            return message(channel, JSON.readValue(payload, Map.class));
        } catch (JsonProcessingException x) {
            LOGGER.warn("Not a history entry of {}: {}", channel, payload);
            return null;
        }
    }

    @SuppressWarnings("unchecked")
    private ServerMessage.Mutable message(String channel, Map<?, ?> payload) {
        ServerMessage.Mutable message = server.newMessage();
        message.setChannel(channel);
        message.setData(payload.get("data"));
        if (payload.get("ext") instanceof Map<?, ?> ext) {
            message.getExt(true).putAll((Map<String, Object>) ext);
        }
        return message;
    }

    /**
     * A message of a history as the publish script sent it ({@code {"o":offset,"e":epoch,"c":channel,"m":payload}}):
     * delivered to this node's subscribers, on the caller's thread (the cluster's delivery thread).
     *
     * @return false when it is not one
     */
    boolean arrived(Map<?, ?> envelope) {
        if (!(envelope.get("o") instanceof Number offset) || !(envelope.get("e") instanceof String epoch)
                || !(envelope.get("c") instanceof String channel) || !(envelope.get("m") instanceof Map<?, ?> payload)) {
            return false;
        }
        server.histories().deliverFromEngine(channel, message(channel, payload), new Position(offset.longValue(), epoch));
        return true;
    }
}
