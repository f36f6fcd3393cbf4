package io.bayeux.transport.internal.websocket;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The context deflater's output inflates, message after message, with one raw inflater kept for the stream, as a client's. */
class FixedHuffmanDeflaterTest {
    private static final byte[] TAIL = {0, 0, (byte) 0xFF, (byte) 0xFF};

    /** A client's side of one connection: one inflater for the whole stream. */
    private static final class Client {
        final Inflater inflater = new Inflater(true);

        byte[] inflate(byte[] payload, int length) throws DataFormatException {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] chunk = new byte[4096];
            inflater.setInput(Arrays.copyOf(payload, length));
            drain(out, chunk);
            inflater.setInput(TAIL);
            drain(out, chunk);
            return out.toByteArray();
        }

        private void drain(ByteArrayOutputStream out, byte[] chunk) throws DataFormatException {
            for (int n = inflater.inflate(chunk); n > 0 || !inflater.needsInput(); n = inflater.inflate(chunk)) {
                out.write(chunk, 0, n);
            }
        }
    }

    private static byte[] message(Random random, int kind, int length, List<byte[]> earlier) {
        byte[] bytes = new byte[length];
        switch (kind) {
            case 0 -> random.nextBytes(bytes);
            case 1 -> Arrays.fill(bytes, (byte) random.nextInt(256));
            case 2 -> {
                for (int i = 0; i < length; i++) {
                    bytes[i] = (byte) "abc".charAt(random.nextInt(3));
                }
            }
            case 3 -> {
                byte[] text = "the quick brown fox jumps over the lazy dog; a chat about lunch and meetings. ".getBytes(StandardCharsets.US_ASCII);
                for (int i = 0; i < length; i++) {
                    bytes[i] = random.nextInt(8) == 0 ? (byte) random.nextInt(128) : text[(i + random.nextInt(2)) % text.length];
                }
            }
            default -> {
                // An earlier message again, perhaps from further back than the window.
                byte[] before = earlier.isEmpty() ? new byte[0] : earlier.get(random.nextInt(earlier.size()));
                for (int i = 0; i < length; i++) {
                    bytes[i] = before.length == 0 ? (byte) i : before[i % before.length];
                }
            }
        }
        return bytes;
    }

    @Test
    void everyWindowSizeInflatesAMixedStreamWhole() throws Exception {
        for (int windowBits = 8; windowBits <= 15; windowBits++) {
            for (int hashBits : new int[]{8, 12, 16}) {
                Random random = new Random(windowBits * 100L + hashBits);
                FixedHuffmanDeflater deflater = new FixedHuffmanDeflater(1 << windowBits, hashBits);
                Client client = new Client();
                List<byte[]> earlier = new ArrayList<>();
                for (int m = 0; m < 120; m++) {
                    int length = random.nextInt(10) == 0 ? random.nextInt(70_000) : random.nextInt(400);
                    byte[] message = message(random, random.nextInt(5), length, earlier);
                    int payload = deflater.compress(message, 0, message.length);
                    assertArrayEquals(message, client.inflate(deflater.output(), payload),
                            "window 2^" + windowBits + ", table 2^" + hashBits + ", message " + m);
                    earlier.add(message);
                }
            }
        }
    }

    @Test
    void anEmptyMessageIsOneZeroByte() throws Exception {
        FixedHuffmanDeflater deflater = new FixedHuffmanDeflater(4096, 12);
        Client client = new Client();
        assertEquals(1, deflater.compress(new byte[0], 0, 0));
        assertEquals(0, deflater.output()[0]);
        assertArrayEquals(new byte[0], client.inflate(deflater.output(), 1));
        byte[] next = "[{\"channel\":\"/chat\"}]".getBytes(StandardCharsets.US_ASCII);
        int payload = deflater.compress(next, 0, next.length);
        assertArrayEquals(next, client.inflate(deflater.output(), payload));
    }

    @Test
    void chatMessagesReferBackToTheOnesBeforeAndIncompressibleOnesGrowByAFewBytes() throws Exception {
        FixedHuffmanDeflater deflater = new FixedHuffmanDeflater(4096, 12);
        Client client = new Client();
        Random random = new Random(3);
        int plain = 0;
        int deflated = 0;
        for (int i = 0; i < 200; i++) {
            byte[] message = ("[{\"channel\":\"/chat/room/" + random.nextInt(5) + "\",\"data\":{\"user\":\"user-" + random.nextInt(1000)
                    + "\",\"chat\":\"lunch at noon in the usual place, " + random.nextInt(100) + " of us\"}}]").getBytes(StandardCharsets.US_ASCII);
            int payload = deflater.compress(message, 0, message.length);
            assertArrayEquals(message, client.inflate(deflater.output(), payload));
            if (i >= 20) {
                plain += message.length;
                deflated += payload;
            }
        }
        assertTrue(deflated * 3 < plain, deflated + " bytes for " + plain);
        byte[] noise = new byte[10_000];
        random.nextBytes(noise);
        int payload = deflater.compress(noise, 0, noise.length);
        // One stored block per window's worth (5 bytes each), the sync flush's end.
        assertTrue(payload <= noise.length + 3 * 5 + 1, payload + " bytes for " + noise.length);
        assertArrayEquals(noise, client.inflate(deflater.output(), payload));
    }

    @Test
    void aFreshDeflatersOutputNeedsNoneOfWhatTheClientGotBefore() throws Exception {
        byte[] message = "[{\"data\":\"the same words, the same words, the same words\"}]".getBytes(StandardCharsets.US_ASCII);
        FixedHuffmanDeflater first = new FixedHuffmanDeflater(4096, 12);
        first.compress(message, 0, message.length);
        // A client that never saw the first stream inflates a fresh deflater's payload alone.
        FixedHuffmanDeflater fresh = new FixedHuffmanDeflater(4096, 12);
        int payload = fresh.compress(message, 0, message.length);
        assertArrayEquals(message, new Client().inflate(fresh.output(), payload));
        // While the first one's next payload refers back to its first message: alone it does not inflate.
        int again = first.compress(message, 0, message.length);
        assertThrows(DataFormatException.class, () -> new Client().inflate(first.output(), again));
    }

    @Test
    void badSettingsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new FixedHuffmanDeflater(3000, 12));
        assertThrows(IllegalArgumentException.class, () -> new FixedHuffmanDeflater(65536, 12));
        assertThrows(IllegalArgumentException.class, () -> new FixedHuffmanDeflater(4096, 17));
    }
}
