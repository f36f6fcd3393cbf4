package io.bayeux.cluster.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A message of an observed channel between nodes, as published in Redis: the JSON object
 * {@code {"node": origin id, "channel": ..., "data": ..., "seq": n, "time": ms}}, where
 * {@code seq} numbers the origin's messages on that channel from 1 (see {@link Sequencer}) and
 * {@code time} is the origin's wall clock at the publish (for the lag, {@link RedisStats}; 0
 * when an envelope came without one). Encoded once per message, whatever the number of nodes.
 * Immutable.
 */
record Envelope(String node, String channel, Object data, long seq, long time) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** An envelope published now. */
    Envelope(String node, String channel, Object data, long seq) {
        this(node, channel, data, seq, System.currentTimeMillis());
    }

    /** This envelope as JSON. */
    String encode() throws JsonProcessingException {
        Map<String, Object> envelope = new LinkedHashMap<>();
        envelope.put("node", node);
        envelope.put("channel", channel);
        envelope.put("data", data);
        envelope.put("seq", seq);
        envelope.put("time", time);
        return JSON.writeValueAsString(envelope);
    }

    /** The JSON object that arrived on a Redis channel: an envelope, a history's message, or anything else. */
    static Map<?, ?> parse(String json) throws JsonProcessingException {
        return JSON.readValue(json, Map.class);
    }

    /** The envelope {@code object} holds, or null when it is not one (a presence event, a history's message). */
    static Envelope of(Map<?, ?> object) {
        if (object.get("node") instanceof String node && object.get("seq") instanceof Number seq
                && object.get("channel") instanceof String channel) {
            long time = object.get("time") instanceof Number stamp ? stamp.longValue() : 0;
            return new Envelope(node, channel, object.get("data"), seq.longValue(), time);
        }
        return null;
    }
}
