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
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigInteger;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The default {@link JsonCodec}, on Jackson. Nesting is limited ({@link #DEFAULT_MAX_NESTING_DEPTH}
 * levels by default) so that deeply nested input fails fast instead of exhausting the stack.
 * Input must be well-formed UTF-8 (RFC 3629): Jackson alone accepts overlong forms, encoded
 * surrogates and code points above U+10FFFF, so the bytes are checked first.
 * Thread-safe.
 */
public final class JacksonJsonCodec implements JsonCodec {
    /** The default maximum nesting depth of a JSON document. */
    public static final int DEFAULT_MAX_NESTING_DEPTH = 64;
    /** Eight bytes of a byte[] as one long, for the ASCII fast path of the UTF-8 check. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long HIGH_BITS = 0x8080808080808080L;

    private final ObjectMapper mapper;
    private final ObjectReader anyReader;
    /** {@link #anyReader} for a value inside a document: what follows it is the caller's. */
    private final ObjectReader nestedReader;
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
        this.anyReader = mapper.readerFor(Object.class);
        this.nestedReader = anyReader.without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        this.writer = mapper.writer();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Each message's fields go straight from the streaming parser into the message made by
     * {@code factory} ({@link Message.Mutable#put}), without a map in between; nested values are
     * read by databind, as {@link #parse} reads them: {@link LinkedHashMap}s, {@link ArrayList}s,
     * {@link String}s, {@link Integer}s, {@link Long}s or {@link BigInteger}s (the smallest that
     * holds the integer), {@link Double}s, {@link Boolean}s and nulls; a message's own scalar
     * fields take the same types. When a name appears twice in one object, the last value wins.
     */
    @Override
    public <M extends Message.Mutable> List<M> decode(byte[] json, Supplier<M> factory) throws JsonException {
        requireUtf8(json);
        try (JsonParser parser = mapper.getFactory().createParser(json)) {
            JsonToken token = parser.nextToken();
            List<M> result;
            if (token == JsonToken.START_OBJECT) {
                result = new ArrayList<>(1);
                result.add(readMessage(parser, factory.get()));
            } else if (token == JsonToken.START_ARRAY) {
                result = new ArrayList<>();
                while ((token = parser.nextToken()) != JsonToken.END_ARRAY) {
                    if (token != JsonToken.START_OBJECT) {
                        throw new JsonException("Expected a JSON object for message " + result.size() + " but found " + token);
                    }
                    result.add(readMessage(parser, factory.get()));
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

    /** The parser is at the message's START_OBJECT; leaves it at its END_OBJECT. */
    private <M extends Message.Mutable> M readMessage(JsonParser parser, M message) throws IOException, JsonException {
        String name;
        while ((name = parser.nextFieldName()) != null) {
            JsonToken token = parser.nextToken();
            // An object or array (data, ext, advice) as databind makes it; a scalar as databind would.
            message.put(name, token.isStructStart() ? nestedReader.readValue(parser) : readScalar(parser, token));
        }
        return message;
    }

    private static Object readScalar(JsonParser parser, JsonToken token) throws IOException, JsonException {
        if (token == null) {
            throw new JsonException("Invalid JSON: unexpected end of input at " + parser.currentLocation().getByteOffset());
        }
        return switch (token) {
            case VALUE_STRING -> parser.getText();
            // Integer, Long or BigInteger: the smallest that holds it, as databind gives.
            case VALUE_NUMBER_INT -> parser.getNumberValue();
            // A Double, as databind gives for a JSON number with a fraction or exponent.
            case VALUE_NUMBER_FLOAT -> parser.getDoubleValue();
            case VALUE_TRUE -> Boolean.TRUE;
            case VALUE_FALSE -> Boolean.FALSE;
            case VALUE_NULL -> null;
            default -> throw new JsonException("Invalid JSON: unexpected " + token + " at " + parser.currentLocation().getByteOffset());
        };
    }

    /** Fails unless {@code bytes} are well-formed UTF-8 as RFC 3629 defines it. */
    private static void requireUtf8(byte[] bytes) throws JsonException {
        int i = 0;
        int length = bytes.length;
        int words = length - Long.BYTES;
        while (i < length) {
            // ASCII eight bytes at a time, until a byte with its high bit set.
            if (i <= words && ((long) LONGS.get(bytes, i) & HIGH_BITS) == 0) {
                i += Long.BYTES;
                continue;
            }
            int b = bytes[i];
            if (b >= 0) {
                i++;
                continue;
            }
            b &= 0xFF;
            int count;
            int min = 0x80;
            int max = 0xBF;
            if (b >= 0xC2 && b <= 0xDF) {
                count = 1;
            } else if (b >= 0xE0 && b <= 0xEF) {
                count = 2;
                if (b == 0xE0) {
                    min = 0xA0; // overlong
                } else if (b == 0xED) {
                    max = 0x9F; // surrogates
                }
            } else if (b >= 0xF0 && b <= 0xF4) {
                count = 3;
                if (b == 0xF0) {
                    min = 0x90; // overlong
                } else if (b == 0xF4) {
                    max = 0x8F; // above U+10FFFF
                }
            } else {
                throw new JsonException("Invalid UTF-8 start byte 0x" + Integer.toHexString(b) + " at " + i);
            }
            if (i + count >= length) {
                throw new JsonException("Truncated UTF-8 sequence at " + i);
            }
            for (int k = 1; k <= count; k++) {
                int c = bytes[i + k] & 0xFF;
                if (c < (k == 1 ? min : 0x80) || c > (k == 1 ? max : 0xBF)) {
                    throw new JsonException("Invalid UTF-8 continuation byte 0x" + Integer.toHexString(c) + " at " + (i + k));
                }
            }
            i += count + 1;
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>A message of the common shape (printable ASCII strings, booleans, integers, nulls, and
     * maps and lists of them: replies, most chat messages) is written by {@link PlainJson},
     * without databind's serializer look-ups; any other as {@link #write} writes it. The bytes
     * are the same either way.
     */
    @Override
    public byte[] encode(Message message) throws JsonException {
        byte[] plain = message instanceof Map<?, ?> fields ? PlainJson.write(fields) : null;
        return plain != null ? plain : write(message);
    }

    @Override
    public Object parse(byte[] json) throws JsonException {
        requireUtf8(json);
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
