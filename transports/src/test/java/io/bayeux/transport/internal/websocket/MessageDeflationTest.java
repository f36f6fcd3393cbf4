package io.bayeux.transport.internal.websocket;

import io.bayeux.transport.WebSocketCompression;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link MessageDeflater} and {@link MessageInflater}: messages alone, no context between them, bounded output. */
class MessageDeflationTest {
    private static final int MAX = 64 * 1024;

    private static byte[] chat(int messages) {
        StringBuilder json = new StringBuilder("[");
        for (int i = 0; i < messages; i++) {
            json.append(i == 0 ? "" : ",").append("{\"channel\":\"/chat/room").append(i % 7)
                    .append("\",\"data\":{\"user\":\"user").append(i).append("\",\"text\":\"hello number ").append(i).append("\"}}");
        }
        return json.append(']').toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void roundTrips(WebSocketCompression settings) throws Exception {
        LongAdder count = new LongAdder();
        MessageDeflater deflater = new MessageDeflater(settings, count);
        MessageInflater inflater = new MessageInflater();
        for (int messages : new int[]{3, 2000, 1}) {
            byte[] message = chat(messages);
            byte[] deflated = deflater.deflate(message);
            assertTrue(deflated.length < message.length, settings + ": " + deflated.length + " < " + message.length);
            // Each message alone: inflating it needs nothing of the ones before.
            assertArrayEquals(message, inflater.inflate(Unpooled.wrappedBuffer(deflated), 1 << 20), settings.toString());
        }
        assertEquals(3, count.sum());
    }

    @Test
    void theJdkDeflaterRoundTripsEachMessageAlone() throws Exception {
        roundTrips(WebSocketCompression.DEFAULT);
    }

    @Test
    void jzlibRoundTripsWithASmallerWindowAndMemoryLevel() throws Exception {
        roundTrips(new WebSocketCompression(true, 6, 10, 4, 0));
    }

    @Test
    void whatDoesNotShrinkIsReturnedItself() {
        byte[] tiny = "[{}]".getBytes(StandardCharsets.US_ASCII);
        assertSame(tiny, new MessageDeflater(WebSocketCompression.DEFAULT, new LongAdder()).deflate(tiny));
    }

    @Test
    void aBombIsRefusedPastTheMaximumWithoutInflatingIt() {
        Deflater deflater = new Deflater(9, true);
        deflater.setInput(new byte[16 * 1024 * 1024]);
        deflater.finish();
        ByteArrayOutputStream bomb = new ByteArrayOutputStream();
        byte[] chunk = new byte[8192];
        while (!deflater.finished()) {
            bomb.write(chunk, 0, deflater.deflate(chunk));
        }
        deflater.end();
        assertTrue(bomb.size() < 32 * 1024, "bomb of " + bomb.size());
        MessageInflater inflater = new MessageInflater();
        assertThrows(MessageInflater.TooLargeException.class, () -> inflater.inflate(Unpooled.wrappedBuffer(bomb.toByteArray()), MAX));
        // Reset after the refusal: the next message inflates.
        byte[] message = chat(5);
        byte[] deflated = new MessageDeflater(WebSocketCompression.DEFAULT, new LongAdder()).deflate(message);
        assertArrayEquals(message, assertDoesNotThrowInflate(inflater, deflated));
    }

    @Test
    void aMessageOfExactlyTheMaximumInflates() throws Exception {
        byte[] message = new byte[MAX];
        Arrays.fill(message, (byte) 'a');
        byte[] deflated = new MessageDeflater(WebSocketCompression.DEFAULT, new LongAdder()).deflate(message);
        assertArrayEquals(message, new MessageInflater().inflate(Unpooled.wrappedBuffer(deflated), MAX));
        byte[] more = Arrays.copyOf(message, MAX + 1);
        more[MAX] = 'a';
        byte[] deflatedMore = new MessageDeflater(WebSocketCompression.DEFAULT, new LongAdder()).deflate(more);
        assertThrows(MessageInflater.TooLargeException.class, () -> new MessageInflater().inflate(Unpooled.wrappedBuffer(deflatedMore), MAX));
    }

    @Test
    void whatIsNotDeflateDataIsRefused() {
        byte[] garbage = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 1, 2, 3};
        assertThrows(DataFormatException.class, () -> new MessageInflater().inflate(Unpooled.wrappedBuffer(garbage), MAX));
        assertFalse(garbage.length == 0);
    }

    private static byte[] assertDoesNotThrowInflate(MessageInflater inflater, byte[] deflated) {
        try {
            return inflater.inflate(Unpooled.wrappedBuffer(deflated), MAX);
        } catch (Exception x) {
            throw new AssertionError(x);
        }
    }
}
