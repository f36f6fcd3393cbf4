package io.bayeux.common.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.bayeux.api.Message;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The default {@link JsonCodec}, on Jackson. Nesting is limited ({@link #DEFAULT_MAX_NESTING_DEPTH}
 * levels by default) so that deeply nested input fails fast instead of exhausting the stack.
 * Thread-safe.
 */
public final class JacksonJsonCodec implements JsonCodec {
    /** The default maximum nesting depth of a JSON document. */
    public static final int DEFAULT_MAX_NESTING_DEPTH = 64;

    private final ObjectMapper mapper;
    private final ObjectReader mapReader;
    private final ObjectReader anyReader;
    private final ObjectWriter writer;

    public JacksonJsonCodec() {
        this(DEFAULT_MAX_NESTING_DEPTH);
    }

    public JacksonJsonCodec(int maxNestingDepth) {
        if (maxNestingDepth < 2) {
            throw new IllegalArgumentException("maxNestingDepth must be at least 2: " + maxNestingDepth);
        }
        JsonFactory factory = JsonFactory.builder()
                .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(maxNestingDepth).build())
                .build();
        this.mapper = new ObjectMapper(factory)
                .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        this.mapReader = mapper.readerFor(Map.class).without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        this.anyReader = mapper.readerFor(Object.class);
        this.writer = mapper.writer();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <M extends Message.Mutable> List<M> decode(byte[] json, Supplier<M> factory) throws JsonException {
        try (JsonParser parser = mapper.getFactory().createParser(json)) {
            JsonToken token = parser.nextToken();
            List<M> result;
            if (token == JsonToken.START_OBJECT) {
                result = new ArrayList<>(1);
                result.add(fill(factory.get(), mapReader.readValue(parser)));
            } else if (token == JsonToken.START_ARRAY) {
                result = new ArrayList<>();
                while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
                    if (token != JsonToken.START_OBJECT) {
                        throw new JsonException("Expected a JSON object for message " + result.size() + " but found " + token);
                    }
                    result.add(fill(factory.get(), mapReader.readValue(parser)));
                }
            } else {
                throw new JsonException("Expected a JSON array of messages or an object, but found " + (token == null ? "nothing" : token));
            }
            if (parser.nextToken() != null) {
                throw new JsonException("Unexpected content after the messages at " + parser.currentLocation().getByteOffset());
            }
            return result;
        } catch (JsonProcessingException x) {
            throw new JsonException("Invalid JSON: " + x.getOriginalMessage(), x);
        } catch (IOException x) {
            throw new JsonException("Invalid JSON: " + x.getMessage(), x);
        }
    }

    private static <M extends Message.Mutable> M fill(M message, Map<String, Object> fields) {
        message.putAll(fields);
        return message;
    }

    @Override
    public byte[] encode(Message message) throws JsonException {
        return write(message);
    }

    @Override
    public Object parse(byte[] json) throws JsonException {
        try {
            return anyReader.readValue(json);
        } catch (JsonProcessingException x) {
            throw new JsonException("Invalid JSON: " + x.getOriginalMessage(), x);
        } catch (IOException x) {
            throw new JsonException("Invalid JSON: " + x.getMessage(), x);
        }
    }

    @Override
    public byte[] write(Object value) throws JsonException {
        try {
            return writer.writeValueAsBytes(value);
        } catch (JsonProcessingException x) {
            throw new JsonException("Cannot write JSON: " + x.getOriginalMessage(), x);
        }
    }

    @Override
    public String toString() {
        return "JacksonJsonCodec";
    }
}
