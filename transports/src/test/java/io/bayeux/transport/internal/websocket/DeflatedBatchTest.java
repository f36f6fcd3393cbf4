package io.bayeux.transport.internal.websocket;

import io.bayeux.transport.WebSocketCompression;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.atomic.LongAdder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link DeflatedBatch}: a frame put together from pieces deflated apart inflates, with
 * {@link MessageInflater} (the four bytes the sender leaves out put back), to the JSON array
 * of its messages — whether each piece was deflated, or stored (too small, or not shrinking),
 * in blocks of at most 64 KiB.
 */
class DeflatedBatchTest {
    private static final UnpooledByteBufAllocator ALLOC = new UnpooledByteBufAllocator(false);

    private static byte[] array(String element) {
        return ("[" + element + "]").getBytes(StandardCharsets.UTF_8);
    }

    private static String incompressible(int length) {
        Random random = new Random(7);
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append((char) ('!' + random.nextInt(90)));
        }
        return text.toString().replace("\"", "'").replace("\\", "/");
    }

    private static void assertInflatesTo(String expected, byte[][] arrays, byte[][] pieces) throws Exception {
        int length = DeflatedBatch.payloadLength(arrays, pieces);
        ByteBuf frame = DeflatedBatch.frame(ALLOC, arrays, pieces, length);
        try {
            assertEquals(0xC1, frame.getUnsignedByte(0), "FIN, RSV1, text");
            int header = length < 126 ? 2 : length < 65536 ? 4 : 10;
            assertEquals(header + length, frame.readableBytes());
            byte[] payload = ByteBufUtil.getBytes(frame, header, length);
            byte[] inflated = new MessageInflater().inflate(io.netty.buffer.Unpooled.wrappedBuffer(payload), 1 << 20);
            assertArrayEquals(expected.getBytes(StandardCharsets.UTF_8), inflated);
        } finally {
            frame.release();
        }
    }

    @Test
    void deflatedStoredAndLargeElementsFollowOneAnother() throws Exception {
        MessageDeflater deflater = new MessageDeflater(WebSocketCompression.DEFAULT, new LongAdder());
        String chat = "{\"channel\":\"/chat/room\",\"data\":{\"text\":\"" + "hello again, ".repeat(20) + "\"}}";
        String small = "{\"channel\":\"/chat/room\",\"data\":\"hi\"}";
        String large = "{\"data\":\"" + incompressible(70_000) + "\"}";
        String[] elements = {chat, small, large, chat};
        byte[][] arrays = new byte[elements.length][];
        byte[][] pieces = new byte[elements.length][];
        for (int i = 0; i < elements.length; i++) {
            arrays[i] = array(elements[i]);
            pieces[i] = deflater.deflateElement(arrays[i]);
        }
        assertTrue(arrays[0] != pieces[0], "a chat message shrinks");
        assertTrue(arrays[1] == pieces[1], "under the threshold: stored");
        assertTrue(arrays[2] != pieces[2], "a large message shrinks too");
        assertInflatesTo("[" + String.join(",", elements) + "]", arrays, pieces);
        // One that did not shrink goes stored, in blocks of at most 64 KiB.
        pieces[2] = arrays[2];
        assertInflatesTo("[" + String.join(",", elements) + "]", arrays, pieces);
    }

    @Test
    void aFrameOfOneStoredElementIsStillAValidStream() throws Exception {
        byte[][] arrays = {array("{}"), array("{\"a\":1}")};
        assertInflatesTo("[{},{\"a\":1}]", arrays, arrays.clone());
    }
}
