package io.bayeux.transport.internal.websocket;

import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.internal.ServerMessageImpl;
import io.bayeux.transport.WebSocketCompression;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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
 * {@link ContextDeflater}, {@link LoopContexts} and {@link MatchFinder}: the messages of several
 * connections, each sent what its channels broadcast, deflated with matches found once per
 * message, each connection's frames inflated by a client inflater that keeps its own context
 * (the JDK's, and one that refuses to reach back further than the window), across releases.
 */
class ContextDeflaterTest {
    private static final byte[] TAIL = {0, 0, (byte) 0xFF, (byte) 0xFF};
    private static final String[] WORDS = ("the of and to a in is it you that he was for on are with as I his they be at one have "
            + "this from or had by hot word but what some we can out other were all there when up use your how said lunch meeting "
            + "tomorrow tonight thanks sure okay great idea sounds perfect later today deploy fixed review merged ticket").split(" ");
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final AtomicLong nanos = new AtomicLong();
    private final AtomicInteger held = new AtomicInteger();
    private final LongAdder compressions = new LongAdder();
    private final LoopContexts loop = loop(WebSocketCompression.Context.ON);
    private final List<Client> clients = new ArrayList<>();

    @AfterEach
    void close() {
        clients.forEach(client -> client.inflater.end());
        channel.finishAndReleaseAll();
    }

    private LoopContexts loop(WebSocketCompression.Context context) {
        return new LoopContexts(channel.eventLoop(), WebSocketCompression.DEFAULT.withContext(context), compressions, held, nanos::get);
    }

    /** A connection: its context, and its client's two inflaters, which keep their contexts for the connection's life. */
    private final class Client {
        final ContextDeflater context;
        final Inflater inflater = new Inflater(true);
        final WindowedInflater windowed;
        long plain;
        long deflated;

        Client(LoopContexts loop, int windowBits) {
            context = new ContextDeflater(loop, windowBits);
            windowed = new WindowedInflater(1 << windowBits);
            clients.add(this);
        }

        /** Sends {@code messages} as one frame; what the client inflates. */
        String send(List<ServerMessage> messages, byte[][] arrays) throws DataFormatException {
            ByteBuf frame = context.frame(UnpooledByteBufAllocator.DEFAULT, messages, arrays);
            try {
                assertEquals(0xC1, frame.getUnsignedByte(0), "FIN, RSV1, text");
                int length = frame.getUnsignedByte(1);
                int header = length == 127 ? 10 : length == 126 ? 4 : 2;
                byte[] payload = new byte[frame.readableBytes() - header];
                frame.getBytes(header, payload);
                deflated += payload.length;
                byte[] jdk = inflate(payload);
                assertArrayEquals(jdk, windowed.inflate(payload), "the windowed inflater's");
                plain += jdk.length;
                return new String(jdk, StandardCharsets.UTF_8);
            } finally {
                frame.release();
            }
        }

        String send(ServerMessage message, byte[] array) throws DataFormatException {
            return send(List.of(message), new byte[][]{array});
        }

        private byte[] inflate(byte[] payload) throws DataFormatException {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] chunk = new byte[256];
            inflater.setInput(payload);
            inflateAll(out, chunk);
            inflater.setInput(TAIL);
            inflateAll(out, chunk);
            return out.toByteArray();
        }

        private void inflateAll(ByteArrayOutputStream out, byte[] chunk) throws DataFormatException {
            for (int n = inflater.inflate(chunk); n > 0; n = inflater.inflate(chunk)) {
                out.write(chunk, 0, n);
            }
        }
    }

    /** A broadcast on {@code channel}: frozen, as the server's are. */
    private static ServerMessageImpl broadcast(String channel, int id) {
        ServerMessageImpl message = new ServerMessageImpl();
        message.setChannel(channel);
        message.setId(String.valueOf(id));
        message.freeze();
        return message;
    }

    /** The JSON array of one a message of chat on {@code channel} is encoded as. */
    private static byte[] chat(String channel, int id, Random random) {
        StringBuilder text = new StringBuilder();
        while (text.length() < 50) {
            text.append(text.isEmpty() ? "" : " ").append(WORDS[random.nextInt(WORDS.length)]);
        }
        return ("[{\"data\":{\"user\":\"user" + random.nextInt(100) + "\",\"text\":\"" + text + "\"},\"channel\":\"" + channel
                + "\",\"id\":\"" + id + "\"}]").getBytes(StandardCharsets.UTF_8);
    }

    /** Sends {@code client} a broadcast of chat on {@code channel}, which its client inflates whole. */
    private static void sendsChat(Client client, String channel, int id, Random random) throws DataFormatException {
        byte[] array = chat(channel, id, random);
        assertEquals("[" + element(array) + "]", client.send(broadcast(channel, id), array));
    }

    private static String element(byte[] array) {
        return new String(array, 1, array.length - 2, StandardCharsets.UTF_8);
    }

    @Test
    void broadcastsAreSearchedOnceAndEachConnectionInflatesThemWithItsOwnContextAtLessThanHalfTheBytes() throws Exception {
        Random random = new Random(11);
        int channels = 10;
        List<Client> all = new ArrayList<>();
        List<boolean[]> subscribed = new ArrayList<>();
        for (int c = 0; c < 20; c++) {
            all.add(new Client(loop, 15));
            boolean[] rooms = new boolean[channels];
            for (int k = 0; k < 3; k++) {
                rooms[random.nextInt(channels)] = true;
            }
            subscribed.add(rooms);
        }
        int messages = 600;
        for (int id = 0; id < messages; id++) {
            int room = random.nextInt(channels);
            String name = "/chat/room" + room;
            ServerMessageImpl message = broadcast(name, id);
            byte[] array = chat(name, id, random);
            for (int c = 0; c < all.size(); c++) {
                if (subscribed.get(c)[room]) {
                    assertEquals("[" + element(array) + "]", all.get(c).send(message, array), "message " + id + " to " + c);
                }
            }
            if (id % 100 == 99) {
                // Clients join rooms they were not sent the last messages of: those matches go as literals.
                subscribed.get(random.nextInt(all.size()))[random.nextInt(channels)] = true;
            }
        }
        assertEquals(messages, loop.searches(), "each broadcast searched once, whatever its connections");
        long plain = all.stream().mapToLong(client -> client.plain).sum();
        long deflated = all.stream().mapToLong(client -> client.deflated).sum();
        assertTrue(deflated * 2 < plain, deflated + " bytes for " + plain);
    }

    @Test
    void aFrameOfSeveralMessagesIsOneJsonArrayAndAMessageOfItsOwnIsSearchedAlone() throws Exception {
        Client client = new Client(loop, 15);
        Random random = new Random(3);
        List<ServerMessage> messages = new ArrayList<>();
        byte[][] arrays = new byte[4][];
        for (int i = 0; i < 4; i++) {
            ServerMessageImpl message = i == 2 ? new ServerMessageImpl() : broadcast("/chat/room", i);
            messages.add(message);
            arrays[i] = chat("/chat/room", i, random);
        }
        String expected = "[" + element(arrays[0]) + "," + element(arrays[1]) + "," + element(arrays[2]) + "," + element(arrays[3]) + "]";
        assertEquals(expected, client.send(messages, arrays));
        assertEquals(4, loop.searches());
        assertEquals(1, loop.channels(), "the reply, not frozen, is kept by no channel");
        assertEquals("[" + element(arrays[0]) + "]", client.send(messages.get(0), arrays[0]));
        assertEquals(4, loop.searches(), "found again, not searched");
    }

    @Test
    void whatAConnectionAndAChannelKeepIsDroppedOnceIdleAndFramesAfterThatInflateWithTheClientsOldContext() throws Exception {
        Client busy = new Client(loop, 15);
        Client quiet = new Client(loop, 15);
        Random random = new Random(5);
        byte[] first = chat("/a", 1, random);
        ServerMessageImpl one = broadcast("/a", 1);
        busy.send(one, first);
        quiet.send(one, first);
        quiet.send(broadcast("/c", 2), chat("/c", 2, random));
        assertEquals(2, held.get());
        assertEquals(2, loop.size());

        long release = WebSocketCompression.Context.DEFAULT_RELEASE_AFTER.toNanos();
        nanos.addAndGet(release - 1);
        byte[] third = chat("/b", 3, random);
        busy.send(broadcast("/b", 3), third);
        nanos.addAndGet(1);
        loop.releaseIdle();
        assertTrue(busy.context.holding(), "used within the release time");
        assertFalse(quiet.context.holding(), "idle for the release time");
        assertEquals(1, held.get());
        assertEquals(2, loop.channels(), "/a quiet for the release time but remembered by the busy connection, /b busy, /c dropped");

        // /a's next message matches into its last one, which the busy connection sent before /b's.
        long before = busy.deflated;
        byte[] again = new String(first, StandardCharsets.UTF_8).replace("\"id\":\"1\"", "\"id\":\"4\"").getBytes(StandardCharsets.UTF_8);
        assertEquals("[" + element(again) + "]", busy.send(broadcast("/a", 4), again));
        assertTrue((busy.deflated - before) * 4 < again.length, (busy.deflated - before) + " bytes for " + again.length);

        nanos.addAndGet(release);
        loop.releaseIdle();
        assertFalse(busy.context.holding());
        assertEquals(0, held.get());
        assertEquals(0, loop.size());
        assertEquals(0, loop.channels(), "no connection remembers any");

        // The clients' inflaters still hold the earlier messages: the fresh state refers to none of them.
        for (int i = 5; i < 10; i++) {
            byte[] array = chat("/a", i, random);
            ServerMessageImpl message = broadcast("/a", i);
            assertEquals("[" + element(array) + "]", busy.send(message, array));
            assertEquals("[" + element(array) + "]", quiet.send(message, array));
        }
        assertTrue(busy.context.holding());
        assertEquals(2, held.get());
    }

    @Test
    void aChannelRemembersHowManyConnectionsKeepASlotForIt() throws Exception {
        Client client = new Client(loop, 15);
        Random random = new Random(13);
        int id = 0;
        // More channels than a connection has slots for: the oldest slots are given to new channels.
        for (int c = 0; c < ContextDeflater.CHANNELS + 4; c++) {
            sendsChat(client, "/user/" + c, id++, random);
        }
        nanos.addAndGet(WebSocketCompression.Context.DEFAULT_RELEASE_AFTER.toNanos() / 2);
        byte[] array = chat("/busy", id, random);
        client.send(broadcast("/busy", id), array);
        nanos.addAndGet(WebSocketCompression.Context.DEFAULT_RELEASE_AFTER.toNanos() / 2);
        loop.releaseIdle();
        assertTrue(client.context.holding());
        assertEquals(ContextDeflater.CHANNELS, loop.channels(), "the channels of the connection's slots, the last ones it was sent");
    }

    @Test
    void aLoopKeepsTheLastMessagesOfABoundedNumberOfChannelsTheLeastRecentlySentToDroppedFirst() throws Exception {
        Client client = new Client(loop, 15);
        Random random = new Random(9);
        int id = 0;
        for (int c = 0; c < LoopContexts.CHANNELS + 100; c++) {
            for (int i = 0; i < 2; i++) {
                sendsChat(client, "/user/" + c, id++, random);
            }
        }
        assertEquals(LoopContexts.CHANNELS, loop.channels());
        // The first channels were dropped: their next messages start a new dictionary, and still inflate.
        byte[] array = chat("/user/0", id, random);
        assertEquals("[" + element(array) + "]", client.send(broadcast("/user/0", id), array));
        assertEquals(LoopContexts.CHANNELS, loop.channels());
    }

    @Test
    void theReleaseRoundIsScheduledOnlyWhileSomethingIsKept() throws Exception {
        Client client = new Client(loop, 15);
        channel.runPendingTasks();
        assertEquals(-1, channel.runScheduledPendingTasks(), "nothing scheduled before a frame is compressed");
        client.send(broadcast("/a", 1), chat("/a", 1, new Random(1)));
        long next = channel.runScheduledPendingTasks();
        assertTrue(next > 0 && next <= TimeUnit.SECONDS.toNanos(1), "a round is scheduled: " + next);
    }

    @Test
    void streamsOfMessagesOfEverySizeInflateWholeAndNoMatchReachesPastTheWindow() throws Exception {
        for (int windowBits = 9; windowBits <= 15; windowBits++) {
            for (int dictionaryBits : new int[]{9, 12, 16}) {
                LoopContexts each = loop(new WebSocketCompression.Context(true, 15, dictionaryBits, Duration.ofSeconds(1)));
                streamInflatesWhole(new Client(each, windowBits), new Client(each, windowBits), new Random(windowBits * 31 + dictionaryBits));
            }
        }
    }

    private void streamInflatesWhole(Client one, Client two, Random random) throws Exception {
        for (int i = 0; i < 300; i++) {
            int count = 1 + random.nextInt(3);
            List<ServerMessage> messages = new ArrayList<>();
            byte[][] arrays = new byte[count][];
            StringBuilder expected = new StringBuilder("[");
            for (int m = 0; m < count; m++) {
                // Mostly chat, now and then larger than the window, or of bytes that do not compress, or not a broadcast.
                StringBuilder text = new StringBuilder();
                int kind = random.nextInt(20);
                int length = kind == 0 ? 1 + random.nextInt(70_000) : kind == 1 ? 0 : 1 + random.nextInt(300);
                boolean noise = random.nextInt(8) == 0;
                for (int c = 0; c < length; c++) {
                    text.append(noise || random.nextInt(4) == 0 ? (char) ('!' + random.nextInt(90)) : " lunch meeting ".charAt(c % 15));
                }
                String channel = "/c" + random.nextInt(3);
                String element = "{\"id\":\"" + i + "\",\"data\":\"" + text.toString().replace("\"", "'").replace("\\", "/")
                        + "\",\"channel\":\"" + channel + "\"}";
                arrays[m] = ("[" + element + "]").getBytes(StandardCharsets.UTF_8);
                ServerMessageImpl message = random.nextInt(5) == 0 ? new ServerMessageImpl() : broadcast(channel, i * 4 + m);
                messages.add(message);
                expected.append(m == 0 ? "" : ",").append(element);
            }
            String whole = expected.append(']').toString();
            assertEquals(whole, one.send(messages, arrays), "frame " + i);
            if (random.nextBoolean()) {
                assertEquals(whole, two.send(messages, arrays), "frame " + i);
            }
        }
    }
}
