package io.bayeux.cluster.redis;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;

import java.io.IOException;
import java.io.StringWriter;
import java.util.Map;

/**
 * A message of an observed channel between nodes, as published in Redis: the JSON object
 * {@code {"node": origin id, "channel": ..., "data": ..., "seq": n, "time": ms}}, where
 * {@code seq} numbers the origin's messages on that channel from 1 (see {@link Sequencer}) and
 * {@code time} is the origin's wall clock at the publish (for the lag, {@link RedisStats}; 0
 * when an envelope came without one). Encoded once per message, whatever the number of nodes.
 * <p>
 * {@link #encode()} writes {@code node} first and without spaces, so that a node tells its own
 * messages, which Redis sends back to it as to every subscriber, by their first characters
 * ({@link #isFrom}) without parsing them. Immutable.
 */
record Envelope(String node, String channel, Object data, long seq, long time) {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Prepared once: {@code readValue(json, Map.class)} looks the type up at each call. */
    private static final ObjectReader MAP_READER = JSON.readerFor(Map.class);

    /** An envelope published now. */
    Envelope(String node, String channel, Object data, long seq) {
        this(node, channel, data, seq, System.currentTimeMillis());
    }

    /** This envelope as JSON: {@code node} first, then {@code channel}, {@code data}, {@code seq}, {@code time}. */
    String encode() throws JsonProcessingException {
        StringWriter out = new StringWriter(256);
        try (JsonGenerator generator = JSON.createGenerator(out)) {
            generator.writeStartObject();
            generator.writeStringField("node", node);
            generator.writeStringField("channel", channel);
            generator.writeFieldName("data");
            JSON.writeValue(generator, data);
            generator.writeNumberField("seq", seq);
            generator.writeNumberField("time", time);
            generator.writeEndObject();
        } catch (JsonProcessingException x) {
            throw x;
        } catch (IOException x) {
            // A StringWriter does not fail; Jackson declares it.
            throw new IllegalStateException(x);
        }
        return out.toString();
    }

    /** The first characters of every envelope {@code nodeId} encodes: what {@link #isFrom} looks for. */
    static String prefix(String nodeId) {
        return "{\"node\":\"" + nodeId + "\"";
    }

    /** Whether {@code json} is an envelope encoded by the node whose {@link #prefix} is {@code prefix}; nothing parsed. */
    static boolean isFrom(String json, String prefix) {
        return json.startsWith(prefix);
    }

    /** The JSON object that arrived on a Redis channel: an envelope, a history's message, or anything else. */
    static Map<?, ?> parse(String json) throws JsonProcessingException {
        return MAP_READER.readValue(json);
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
