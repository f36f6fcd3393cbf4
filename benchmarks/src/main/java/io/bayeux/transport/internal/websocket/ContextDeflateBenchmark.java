package io.bayeux.transport.internal.websocket;

import io.bayeux.server.internal.ServerMessageImpl;
import io.bayeux.transport.WebSocketCompression;
import io.netty.channel.embedded.EmbeddedChannel;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * permessage-deflate with a context per connection, step by step, on the load tool's chat:
 * {@code connections} connections of one event loop, each in 10 of 100 rooms, sent the rooms'
 * broadcasts in turn (chat text of {@code textChars} characters of English words, the fields of
 * the load tool's messages). {@code deliver} is what a broadcast costs on a loop: its matches
 * found once ({@link LoopContexts#matches}), then its frame's payload deflated for each
 * subscriber ({@link ContextDeflater#compress}), per delivery; {@code search} is the first step
 * alone, per broadcast (each searched afresh against its room's last messages).
 * Package {@code io.bayeux.transport.internal.websocket}: the steps are the transport's own.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class ContextDeflateBenchmark {
    private static final String[] WORDS = ("the of and to a in is it you that he was for on are with as I his they be at one have "
            + "this from or had by hot word but what some we can out other were all there when up use your how said an each "
            + "she which do their time if will way about many then them write would like so these her long make thing see "
            + "him two has look more day could go come did number sound no most people my over know water than call first "
            + "lunch meeting tomorrow tonight thanks sure okay great idea sounds perfect later today deploy fixed review").split(" ");
    private static final int ROOMS = 100;
    /** Broadcasts in the cycle the benchmark goes through; each is sent to its room's subscribers. */
    private static final int BROADCASTS = 4096;

    /** Connections of the loop; the per-delivery figure of {@link #deliver} assumes 500. */
    @Param({"500"})
    public int connections;
    @Param({"50", "200"})
    public int textChars;

    private EmbeddedChannel channel;
    private LoopContexts loop;
    private ContextDeflater[] contexts;
    private int[][] subscribers;
    private ServerMessageImpl[] messages;
    private int[] rooms;
    private byte[][] arrays;
    private int next;
    private final AtomicLong nanos = new AtomicLong();

    @Setup(Level.Trial)
    public void setUp() {
        channel = new EmbeddedChannel();
        loop = new LoopContexts(channel.eventLoop(), WebSocketCompression.DEFAULT.withContext(WebSocketCompression.Context.ON),
                new LongAdder(), new AtomicInteger(), nanos::get);
        Random random = new Random(42);
        List<List<Integer>> members = new ArrayList<>();
        for (int r = 0; r < ROOMS; r++) {
            members.add(new ArrayList<>());
        }
        contexts = new ContextDeflater[connections];
        List<Integer> all = new ArrayList<>();
        for (int r = 0; r < ROOMS; r++) {
            all.add(r);
        }
        for (int c = 0; c < connections; c++) {
            contexts[c] = new ContextDeflater(loop, 15);
            Collections.shuffle(all, random);
            for (int r : all.subList(0, 10)) {
                members.get(r).add(c);
            }
        }
        subscribers = new int[ROOMS][];
        for (int r = 0; r < ROOMS; r++) {
            subscribers[r] = members.get(r).stream().mapToInt(Integer::intValue).toArray();
        }
        messages = new ServerMessageImpl[BROADCASTS];
        rooms = new int[BROADCASTS];
        arrays = new byte[BROADCASTS][];
        int[] roomSeq = new int[ROOMS];
        for (int i = 0; i < BROADCASTS; i++) {
            int room = random.nextInt(ROOMS);
            rooms[i] = room;
            arrays[i] = chat(room, ++roomSeq[room], random.nextInt(1000), i, random).getBytes(StandardCharsets.UTF_8);
        }
        long sent = 0;
        for (int room : rooms) {
            sent += subscribers[room].length;
        }
        if (connections == 500 && Math.abs(sent - 50L * BROADCASTS) > BROADCASTS / 2) {
            throw new IllegalStateException("deliver counts 50 deliveries a broadcast; the cycle averages " + (double) sent / BROADCASTS);
        }
        renew();
        // One pass first: every connection's state made, every room's last messages kept.
        for (int i = 0; i < BROADCASTS; i++) {
            deliverNext();
        }
    }

    /** The load tool's message of chat, as the server encodes it: a JSON array of one. */
    private String chat(int room, int roomSeq, int publisher, int i, Random random) {
        StringBuilder text = new StringBuilder();
        while (text.length() < textChars) {
            text.append(text.isEmpty() ? "" : " ").append(WORDS[random.nextInt(WORDS.length)]);
        }
        text.setLength(textChars);
        return "[{\"data\":{\"r\":" + room + ",\"q\":" + roomSeq + ",\"p\":" + publisher + ",\"s\":" + (i / 7) + ",\"t\":"
                + (1_000_000_000L + i * 5_000L + random.nextInt(5_000)) + ",\"c\":\"" + text + "\"},\"channel\":\"/chat/room/" + room + "\"}]";
    }

    /** New message objects for the cycle: each broadcast is searched again when it comes round. */
    private void renew() {
        for (int i = 0; i < BROADCASTS; i++) {
            ServerMessageImpl message = new ServerMessageImpl();
            message.setChannel("/chat/room/" + rooms[i]);
            message.freeze();
            messages[i] = message;
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        channel.finishAndReleaseAll();
    }

    private int deliverNext() {
        int i = next;
        next = (next + 1) & (BROADCASTS - 1);
        if (next == 0) {
            renew();
        }
        ServerMessageImpl message = messages[i];
        byte[][] frame = {arrays[i]};
        List<ServerMessageImpl> batch = List.of(message);
        int bytes = 0;
        for (int c : subscribers[rooms[i]]) {
            bytes += contexts[c].compress(batch, frame);
        }
        return bytes;
    }

    /**
     * One broadcast to its room's subscribers, per delivery: with 500 connections in 10 rooms of
     * 100 each, a room has 50 subscribers on average (the set-up checks the cycle's mean is within 1 % of it).
     */
    @Benchmark
    @OperationsPerInvocation(50)
    public int deliver() {
        return deliverNext();
    }

    /** The search of one broadcast against its room's last messages, alone. */
    @Benchmark
    public Object search() {
        int i = next;
        next = (next + 1) & (BROADCASTS - 1);
        ServerMessageImpl message = new ServerMessageImpl();
        message.setChannel(messages[i].getChannel());
        message.freeze();
        return loop.matches(message, arrays[i]);
    }
}
