package io.bayeux.client.transport;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtension;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionData;
import io.netty.handler.codec.http.websocketx.extensions.compression.PerMessageDeflateClientExtensionHandshaker;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.Deflater;

/**
 * What the Java client spends inflating one compressed message (a frame of one chat message of
 * about 200 bytes, the load tool's shape), with its {@link InflateDecoder} and with Netty's
 * permessage-deflate decoder, for a server that compresses each message alone
 * ({@code server_no_context_takeover}, this project's default) and for one that keeps context
 * (CometD's default). Package {@code io.bayeux.client.transport}: the decoder is the client's own.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class ClientInflateBenchmark {
    private static final String[] WORDS = ("the of and to a in is it you that he was for on are with as I his they be at one have "
            + "this from or had by hot word but what some we can out other were all there when up use your how said an each "
            + "lunch meeting tomorrow tonight thanks sure okay great idea sounds perfect later today deploy fixed review").split(" ");
    private static final int MESSAGES = 1024;

    /** The server keeps context between messages. */
    @Param({"false", "true"})
    public boolean context;
    @Param({"ours", "netty"})
    public String decoder;

    private EmbeddedChannel channel;
    private byte[][] frames;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        Random random = new Random(42);
        Deflater stream = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
        frames = new byte[MESSAGES][];
        for (int i = 0; i < MESSAGES; i++) {
            StringBuilder text = new StringBuilder();
            while (text.length() < 112) {
                text.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
            }
            String json = "[{\"data\":{\"r\":" + random.nextInt(100) + ",\"q\":" + i + ",\"p\":" + random.nextInt(1000) + ",\"s\":" + i
                    + ",\"t\":" + (1_000_000L + 50_000L * i) + ",\"c\":\"" + text.substring(0, 112) + "\"},\"channel\":\"/chat/"
                    + random.nextInt(100) + "\",\"id\":\"" + (i + 7) + "\"}]";
            Deflater deflater = context ? stream : new Deflater(Deflater.DEFAULT_COMPRESSION, true);
            frames[i] = deflate(deflater, json.getBytes(StandardCharsets.UTF_8));
        }
        setUpChannel();
        next = 0;
    }

    /** One compressed frame in, its inflated frame out (released). */
    @Benchmark
    public int inflate() {
        if (next == 0 && context) {
            // The stream starts again: a new connection's decoder.
            channel.finishAndReleaseAll();
            setUpChannel();
        }
        byte[] frame = frames[next];
        next = (next + 1) & (MESSAGES - 1);
        channel.writeInbound(new TextWebSocketFrame(true, WebSocketExtension.RSV1, Unpooled.wrappedBuffer(frame)));
        WebSocketFrame out = channel.readInbound();
        int length = out.content().readableBytes();
        out.release();
        return length;
    }

    /** A new connection's decoder: ours or Netty's, for a server that keeps context or not. */
    private void setUpChannel() {
        ChannelHandler handler;
        if (decoder.equals("ours")) {
            handler = new InflateDecoder(context, 1 << 20);
        } else {
            WebSocketExtensionData answer = new WebSocketExtensionData("permessage-deflate",
                    context ? Map.of() : Map.of("server_no_context_takeover", ""));
            handler = new PerMessageDeflateClientExtensionHandshaker(6, false, 15, true, false)
                    .handshakeExtension(answer).newExtensionDecoder();
        }
        channel = new EmbeddedChannel(handler);
    }

    private static byte[] deflate(Deflater deflater, byte[] plain) {
        deflater.setInput(plain);
        byte[] out = new byte[plain.length + 64];
        int length = deflater.deflate(out, 0, out.length, Deflater.SYNC_FLUSH);
        return Arrays.copyOf(out, length - 4);
    }
}
