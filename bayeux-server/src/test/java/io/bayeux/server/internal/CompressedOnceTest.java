package io.bayeux.server.internal;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * A frozen message's compressed form is computed once and shared; when its compressor finds it
 * not worth compressing, every caller must be told so with its own array, not another's: the JSON
 * bytes are cached racily, so two event loops that encode the message at the same time hold two
 * equal arrays, and a transport tells "not compressed" by identity.
 */
class CompressedOnceTest {
    private static final UnaryOperator<byte[]> NOT_WORTH_IT = array -> array;

    private static ServerMessageImpl frozen() {
        ServerMessageImpl message = new ServerMessageImpl(Map.of("channel", "/chat/room/1", "data", "hi"));
        message.freeze();
        return message;
    }

    @Test
    void aMessageThatDoesNotCompressIsTheCallersOwnArrayForEveryCaller() {
        ServerMessageImpl message = frozen();
        byte[] first = "[{\"data\":\"hi\"}]".getBytes();
        byte[] second = first.clone();

        assertSame(first, message.compressArray(first, NOT_WORTH_IT));
        assertSame(second, message.compressArray(second, NOT_WORTH_IT), "not compressed, told with the second caller's own array");
        assertSame(first, message.compressElement(first, NOT_WORTH_IT));
        assertSame(second, message.compressElement(second, NOT_WORTH_IT));
    }

    @Test
    void aMessageThatCompressesIsCompressedOnceAndShared() {
        ServerMessageImpl message = frozen();
        AtomicInteger calls = new AtomicInteger();
        byte[] deflated = {1, 2, 3};
        UnaryOperator<byte[]> compressor = array -> {
            calls.incrementAndGet();
            return deflated;
        };
        byte[] first = "[{\"data\":\"hi\"}]".getBytes();

        assertSame(deflated, message.compressArray(first, compressor));
        assertSame(deflated, message.compressArray(first.clone(), compressor));
        assertArrayEquals(deflated, message.compressElement(first, compressor));
        assertEquals(2, calls.get(), "once for the whole array, once as an element");
    }
}
