package io.bayeux.transport.internal.websocket;

import io.bayeux.transport.WebSocketCompression;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ContextDeflater} and {@link LoopContexts}: a connection's messages deflated with one
 * context, inflated by a client inflater that keeps its own, across the deflater's release.
 */
class ContextDeflaterTest {
    private static final byte[] TAIL = {0, 0, (byte) 0xFF, (byte) 0xFF};
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final AtomicLong nanos = new AtomicLong();
    private final AtomicInteger held = new AtomicInteger();
    private final LongAdder compressions = new LongAdder();
    private final LoopContexts loop = new LoopContexts(channel.eventLoop(),
            WebSocketCompression.DEFAULT.withContext(WebSocketCompression.Context.ON), compressions, held, nanos::get);
    /** The client's: keeps its window for the connection's life, as a client that allowed context takeover does. */
    private final Inflater client = new Inflater(true);

    @AfterEach
    void close() {
        client.end();
        channel.finishAndReleaseAll();
    }

    private static byte[] delivery(int i) {
        return ("[{\"data\":{\"user\":\"user" + i % 5 + "\",\"text\":\"sure thanks see you at lunch tomorrow " + i
                + "\"},\"channel\":\"/chat/room" + i % 3 + "\",\"id\":\"" + i + "\"}]").getBytes(StandardCharsets.UTF_8);
    }

    /** The payload of {@code frame} (a server's: no mask), inflated by the client; the frame released. */
    private byte[] inflate(ByteBuf frame) throws DataFormatException {
        try {
            assertEquals(0xC1, frame.getUnsignedByte(0), "FIN, RSV1, text");
            int length = frame.getUnsignedByte(1);
            int header = length == 127 ? 10 : length == 126 ? 4 : 2;
            byte[] payload = new byte[frame.readableBytes() - header];
            frame.getBytes(header, payload);
            client.setInput(payload);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] chunk = new byte[256];
            inflateAll(out, chunk);
            client.setInput(TAIL);
            inflateAll(out, chunk);
            return out.toByteArray();
        } finally {
            frame.release();
        }
    }

    private void inflateAll(ByteArrayOutputStream out, byte[] chunk) throws DataFormatException {
        for (int n = client.inflate(chunk); n > 0; n = client.inflate(chunk)) {
            out.write(chunk, 0, n);
        }
    }

    @Test
    void messagesReferBackToEarlierOnesAndInflateWithTheClientsContext() throws Exception {
        ContextDeflater context = new ContextDeflater(loop);
        int plain = 0;
        int deflated = 0;
        for (int i = 0; i < 50; i++) {
            byte[] message = delivery(i);
            ByteBuf frame = context.frame(UnpooledByteBufAllocator.DEFAULT, new byte[][]{message});
            if (i >= 10) {
                plain += message.length;
                deflated += frame.readableBytes() - 2;
            }
            assertArrayEquals(message, inflate(frame));
        }
        // Alone, such a message shrinks by a few percent; with the messages before it, several times.
        assertTrue(deflated * 3 < plain, deflated + " bytes for " + plain);
        assertEquals(50, compressions.sum());
    }

    @Test
    void aFrameOfSeveralMessagesIsOneJsonArray() throws Exception {
        ContextDeflater context = new ContextDeflater(loop);
        byte[][] arrays = {delivery(1), delivery(2), delivery(3)};
        String expected = "[" + String.join(",", new String(arrays[0], StandardCharsets.UTF_8).substring(1, arrays[0].length - 1),
                new String(arrays[1], StandardCharsets.UTF_8).substring(1, arrays[1].length - 1),
                new String(arrays[2], StandardCharsets.UTF_8).substring(1, arrays[2].length - 1)) + "]";
        assertEquals(expected, new String(inflate(context.frame(UnpooledByteBufAllocator.DEFAULT, arrays)), StandardCharsets.UTF_8));
        assertArrayEquals(delivery(4), inflate(context.frame(UnpooledByteBufAllocator.DEFAULT, new byte[][]{delivery(4)})));
    }

    @Test
    void theDeflaterIsDroppedOnceIdleAndAFreshOneInflatesWithTheClientsOldContext() throws Exception {
        ContextDeflater busy = new ContextDeflater(loop);
        ContextDeflater quiet = new ContextDeflater(loop);
        assertArrayEquals(delivery(1), inflate(busy.frame(UnpooledByteBufAllocator.DEFAULT, new byte[][]{delivery(1)})));
        quiet.frame(UnpooledByteBufAllocator.DEFAULT, new byte[][]{delivery(1)}).release();
        assertEquals(2, held.get());
        assertEquals(2, loop.size());

        long release = WebSocketCompression.Context.DEFAULT_RELEASE_AFTER.toNanos();
        nanos.addAndGet(release - 1);
        assertArrayEquals(delivery(2), inflate(busy.frame(UnpooledByteBufAllocator.DEFAULT, new byte[][]{delivery(2)})));
        nanos.addAndGet(1);
        loop.releaseIdle();
        assertTrue(busy.holding(), "used within the release time");
        assertFalse(quiet.holding(), "idle for the release time");
        assertEquals(1, held.get());

        nanos.addAndGet(release);
        loop.releaseIdle();
        assertFalse(busy.holding());
        assertEquals(0, held.get());
        assertEquals(0, loop.size());

        // The client's inflater still holds the earlier messages: the fresh stream needs none of them.
        for (int i = 3; i < 6; i++) {
            assertArrayEquals(delivery(i), inflate(busy.frame(UnpooledByteBufAllocator.DEFAULT, new byte[][]{delivery(i)})));
        }
        assertTrue(busy.holding());
        assertEquals(1, held.get());
    }

    @Test
    void theReleaseRoundIsScheduledOnlyWhileADeflaterIsHeld() {
        ContextDeflater context = new ContextDeflater(loop);
        channel.runPendingTasks();
        assertEquals(-1, channel.runScheduledPendingTasks(), "nothing scheduled before a deflater is made");
        context.frame(UnpooledByteBufAllocator.DEFAULT, new byte[][]{delivery(1)}).release();
        long next = channel.runScheduledPendingTasks();
        assertTrue(next > 0 && next <= TimeUnit.NANOSECONDS.toNanos(Duration.ofSeconds(1).toNanos()), "a round is scheduled: " + next);
    }

    @Test
    void aLongStreamOfMessagesOfEverySizeInflatesWhole() throws Exception {
        streamInflatesWhole(new ContextDeflater(loop));
    }

    @Test
    void withTheLargestWindowAndTableTheContextIsKeptAndReleased() throws Exception {
        WebSocketCompression.Context largest = new WebSocketCompression.Context(true, 15, 9, Duration.ofSeconds(1));
        LoopContexts largestLoop = new LoopContexts(channel.eventLoop(), WebSocketCompression.DEFAULT.withContext(largest), compressions, held, nanos::get);
        ContextDeflater context = new ContextDeflater(largestLoop);
        streamInflatesWhole(context);
        assertTrue(context.holding());
        nanos.addAndGet(largest.releaseAfter().toNanos());
        largestLoop.releaseIdle();
        assertFalse(context.holding());
        assertEquals(0, held.get());
        assertArrayEquals(delivery(1), inflate(context.frame(UnpooledByteBufAllocator.DEFAULT, new byte[][]{delivery(1)})));
    }

    private void streamInflatesWhole(ContextDeflater context) throws Exception {
        java.util.Random random = new java.util.Random(7);
        for (int i = 0; i < 1000; i++) {
            int count = 1 + random.nextInt(3);
            byte[][] arrays = new byte[count][];
            StringBuilder expected = new StringBuilder("[");
            for (int m = 0; m < count; m++) {
                // Mostly chat, now and then a message larger than the window, or of bytes that do not compress.
                StringBuilder text = new StringBuilder();
                int length = random.nextInt(10) == 0 ? 1 + random.nextInt(9000) : 1 + random.nextInt(200);
                for (int c = 0; c < length; c++) {
                    text.append(random.nextInt(4) == 0 ? (char) ('a' + random.nextInt(26)) : " lunch meeting ".charAt(c % 15));
                }
                String element = "{\"id\":\"" + i + "\",\"data\":\"" + text + "\"}";
                arrays[m] = ("[" + element + "]").getBytes(StandardCharsets.UTF_8);
                expected.append(m == 0 ? "" : ",").append(element);
            }
            byte[] inflated = inflate(context.frame(UnpooledByteBufAllocator.DEFAULT, arrays));
            assertEquals(expected.append(']').toString(), new String(inflated, StandardCharsets.UTF_8), "frame " + i);
        }
    }
}
