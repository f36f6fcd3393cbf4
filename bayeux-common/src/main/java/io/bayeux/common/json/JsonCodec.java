package io.bayeux.common.json;

import io.bayeux.api.Message;

import java.util.List;
import java.util.function.Supplier;

/**
 * The only place where JSON is parsed or written. Implementations are thread-safe.
 */
public interface JsonCodec {
    /**
     * Parses a JSON array of messages, or a single message object, into messages made by
     * {@code factory}.
     *
     * @throws JsonException when the input is not valid JSON, not an object or array of
     *         objects, or exceeds the codec's limits
     */
    <M extends Message.Mutable> List<M> decode(byte[] json, Supplier<M> factory) throws JsonException;

    /** Writes one message as a JSON object in UTF-8. */
    byte[] encode(Message message) throws JsonException;

    /** Parses any JSON value into maps, lists, strings, numbers, booleans and null. */
    Object parse(byte[] json) throws JsonException;

    /** Writes any value made of maps, lists, strings, numbers, booleans and null. */
    byte[] write(Object value) throws JsonException;

    /** A failure to parse or write JSON; the message says what and where. */
    class JsonException extends Exception {
        public JsonException(String message, Throwable cause) {
            super(message, cause);
        }

        public JsonException(String message) {
            super(message);
        }
    }
}
