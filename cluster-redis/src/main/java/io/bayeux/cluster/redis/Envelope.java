package io.bayeux.cluster.redis;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A message of an observed channel between nodes, as published in Redis: the JSON object
 * {@code {"node": origin id, "channel": ..., "data": ..., "seq": n}}, where {@code seq} numbers
 * the origin's messages on that channel from 1 (see {@link Sequencer}). Encoded once per
 * message, whatever the number of nodes. Immutable.
 */
record Envelope(String node, String channel, Object data, long seq) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** This envelope as JSON. */
    String encode() throws JsonProcessingException {
        Map<String, Object> envelope = new LinkedHashMap<>();
        envelope.put("node", node);
        envelope.put("channel", channel);
        envelope.put("data", data);
        envelope.put("seq", seq);
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
            return new Envelope(node, channel, object.get("data"), seq.longValue());
        }
        return null;
    }
}
