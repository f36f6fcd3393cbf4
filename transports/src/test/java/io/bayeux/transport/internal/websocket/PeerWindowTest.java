package io.bayeux.transport.internal.websocket;

import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.Deflater;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link PeerWindow}: clients that compress each message alone, and those that keep context anyway. */
class PeerWindowTest {
    private static final int MAX = 1 << 20;

    /** A permessage-deflate sender; {@code keepContext} as a client that ignores client_no_context_takeover. */
    private static final class Sender {
        private final Deflater deflater = new Deflater(6, true);
        private final boolean keepContext;

        Sender(boolean keepContext) {
            this.keepContext = keepContext;
        }

        byte[] send(byte[] message) {
            deflater.setInput(message);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] chunk = new byte[4096];
            int n;
            do {
                n = deflater.deflate(chunk, 0, chunk.length, Deflater.SYNC_FLUSH);
                out.write(chunk, 0, n);
            } while (n == chunk.length);
            if (!keepContext) {
                deflater.reset();
            }
            byte[] bytes = out.toByteArray();
            return Arrays.copyOf(bytes, bytes.length - 4);
        }
    }

    private static byte[] message(int i, int padding) {
        return ("[{\"channel\":\"/meta/connect\",\"clientId\":\"abc\",\"connectionType\":\"websocket\",\"id\":\"" + i + "\",\"pad\":\""
                + "p".repeat(padding) + "\"}]").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aClientThatCompressesEachMessageAloneSoonNeedsNothingKept() throws Exception {
        Sender sender = new Sender(false);
        PeerWindow window = new PeerWindow();
        MessageInflater inflater = new MessageInflater();
        for (int i = 0; i < 3; i++) {
            assertTrue(window.needed(), "still kept before message " + i);
            assertArrayEquals(message(i, 0), window.inflate(inflater, Unpooled.wrappedBuffer(sender.send(message(i, 0))), MAX));
        }
        assertFalse(window.needed());
    }

    @Test
    void aClientThatKeepsContextIsInflatedWithItsEarlierMessagesPastTheWindowSize() throws Exception {
        Sender sender = new Sender(true);
        PeerWindow window = new PeerWindow();
        MessageInflater inflater = new MessageInflater();
        // 20 KiB messages: the window soon holds the end of one and the start of none.
        for (int i = 0; i < 6; i++) {
            byte[] message = message(i, i % 2 == 0 ? 20_000 : 10);
            assertArrayEquals(message, window.inflate(inflater, Unpooled.wrappedBuffer(sender.send(message)), MAX), "message " + i);
        }
        assertTrue(window.needed());
    }
}
