package io.bayeux.server.internal;

import io.bayeux.api.server.ServerMessage;
import io.bayeux.common.json.JsonCodec;

import java.util.List;
import java.util.function.ToIntFunction;

/**
 * Messages written, with one server's codec, as the JSON array a response body or frame
 * carries. A frozen message (a broadcast) contributes the bytes computed the first time it was
 * written, shared by every recipient: results may be those very bytes, so callers must not
 * modify them. Immutable and thread-safe.
 */
final class JsonArrays {
    private static final byte[] EMPTY_ARRAY = {'[', ']'};

    private final JsonCodec codec;
    /** {@link #encodedLength} as a function, made once: a queue weighs what it takes with it. */
    private final ToIntFunction<ServerMessage> encodedLength = this::encodedLength;

    JsonArrays(JsonCodec codec) {
        this.codec = codec;
    }

    /** Writes messages as one JSON array, joining each one's array of one. */
    byte[] encode(List<? extends ServerMessage> messages) throws JsonCodec.JsonException {
        if (messages.isEmpty()) {
            return EMPTY_ARRAY.clone();
        }
        if (messages.size() == 1) {
            return encodeArray(messages.get(0));
        }
        byte[][] parts = new byte[messages.size()][];
        int length = 1 + messages.size();
        for (int i = 0; i < parts.length; i++) {
            parts[i] = encodeArray(messages.get(i));
            length += parts[i].length - 2;
        }
        byte[] out = new byte[length];
        out[0] = '[';
        int at = 1;
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) {
                out[at++] = ',';
            }
            System.arraycopy(parts[i], 1, out, at, parts[i].length - 2);
            at += parts[i].length - 2;
        }
        out[at] = ']';
        return out;
    }

    /** One message as a JSON array of one, {@code [ {...} ]}; a frozen message's bytes are computed once and shared. */
    byte[] encodeArray(ServerMessage message) throws JsonCodec.JsonException {
        if (message instanceof ServerMessageImpl impl) {
            return impl.encodeArray(codec);
        }
        byte[] json = codec.encode(message);
        byte[] out = new byte[json.length + 2];
        out[0] = '[';
        System.arraycopy(json, 0, out, 1, json.length);
        out[out.length - 1] = ']';
        return out;
    }

    /** The length of {@code message} as a JSON array of one; encoded once and kept for the write when frozen; 0 when it cannot be written. */
    int encodedLength(ServerMessage message) {
        try {
            return encodeArray(message).length;
        } catch (JsonCodec.JsonException x) {
            // Its write fails and says so; it weighs nothing meanwhile.
            return 0;
        }
    }

    /** {@link #encodedLength} as a function. */
    ToIntFunction<ServerMessage> encodedLength() {
        return encodedLength;
    }
}
