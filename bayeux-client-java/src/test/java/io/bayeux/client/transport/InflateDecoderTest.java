package io.bayeux.client.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtension;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.Deflater;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link InflateDecoder} on embedded channels: one thread, so every connection shares its inflater for whole messages. */
class InflateDecoderTest {
    private static final int MAX = 1 << 20;

    @Test
    void aMessageInSeveralFramesIsNotDisturbedByAnotherConnectionsWholeMessagesBetweenItsFrames() {
        EmbeddedChannel fragmented = new EmbeddedChannel(new InflateDecoder(false, MAX));
        EmbeddedChannel whole = new EmbeddedChannel(new InflateDecoder(false, MAX));
        String long1 = "the first message, in two frames, that says it twice: ".repeat(20);
        byte[] deflated = deflate(new Deflater(Deflater.DEFAULT_COMPRESSION, true), long1);
        int half = deflated.length / 2;

        fragmented.writeInbound(new TextWebSocketFrame(false, WebSocketExtension.RSV1, Unpooled.wrappedBuffer(deflated, 0, half)));
        assertEquals("another connection's message", text(whole, compressed("another connection's message")));
        fragmented.writeInbound(new ContinuationWebSocketFrame(true, 0, Unpooled.wrappedBuffer(deflated, half, deflated.length - half)));
        assertEquals("a third", text(whole, compressed("a third")));

        WebSocketFrame first = fragmented.readInbound();
        WebSocketFrame second = fragmented.readInbound();
        assertInstanceOf(TextWebSocketFrame.class, first);
        assertEquals(0, first.rsv(), "RSV1 cleared");
        assertFalse(first.isFinalFragment());
        assertInstanceOf(ContinuationWebSocketFrame.class, second);
        assertTrue(second.isFinalFragment());
        assertEquals(long1, first.content().toString(StandardCharsets.UTF_8) + second.content().toString(StandardCharsets.UTF_8));
        first.release();
        second.release();
    }

    @Test
    void framesWithoutRsv1PassUntouched() {
        EmbeddedChannel channel = new EmbeddedChannel(new InflateDecoder(false, MAX));
        TextWebSocketFrame plain = new TextWebSocketFrame("[{\"channel\":\"/chat\"}]");
        channel.writeInbound(plain);
        WebSocketFrame out = channel.readInbound();
        assertTrue(out == plain, "the same frame");
        out.release();
    }

    @Test
    void aServerThatEndsAMessageWithAFinalBlockStartsTheNextStreamAfresh() {
        EmbeddedChannel channel = new EmbeddedChannel(new InflateDecoder(true, MAX));
        Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
        deflater.setInput("the end of a stream".getBytes(StandardCharsets.UTF_8));
        deflater.finish();
        byte[] out = new byte[256];
        int length = deflater.deflate(out);
        assertTrue(deflater.finished());
        assertEquals("the end of a stream", text(channel, new TextWebSocketFrame(true, WebSocketExtension.RSV1, Unpooled.wrappedBuffer(out, 0, length))));
        assertEquals("and a new one", text(channel, compressed("and a new one")));
    }

    @Test
    void whatIsNotDeflateDataIsRefusedAsInvalidPayload() {
        EmbeddedChannel channel = new EmbeddedChannel(new InflateDecoder(false, MAX));
        CorruptedWebSocketFrameException refused = assertThrows(CorruptedWebSocketFrameException.class, () -> channel.writeInbound(
                new TextWebSocketFrame(true, WebSocketExtension.RSV1, Unpooled.wrappedBuffer(new byte[]{(byte) 0xFF, (byte) 0xFF, 0x12}))));
        assertEquals(WebSocketCloseStatus.INVALID_PAYLOAD_DATA, refused.closeStatus());
        // The thread's inflater was reset: the next connection's message inflates.
        assertEquals("fine", text(new EmbeddedChannel(new InflateDecoder(false, MAX)), compressed("fine")));
    }

    @Test
    void aMessageIsRefusedOnceItsFramesTogetherInflatePastTheBound() {
        EmbeddedChannel channel = new EmbeddedChannel(new InflateDecoder(false, 1000));
        Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
        // Not the message's end: its sync flush kept whole.
        byte[] six = flushed(deflater, "x".repeat(600));
        channel.writeInbound(new TextWebSocketFrame(false, WebSocketExtension.RSV1, Unpooled.wrappedBuffer(six)));
        WebSocketFrame first = channel.readInbound();
        assertEquals(600, first.content().readableBytes());
        first.release();
        byte[] more = deflate(deflater, "y".repeat(600));
        CorruptedWebSocketFrameException refused = assertThrows(CorruptedWebSocketFrameException.class,
                () -> channel.writeInbound(new ContinuationWebSocketFrame(true, 0, Unpooled.wrappedBuffer(more))));
        assertEquals(WebSocketCloseStatus.MESSAGE_TOO_BIG, refused.closeStatus());
    }

    private static String text(EmbeddedChannel channel, WebSocketFrame frame) {
        channel.writeInbound(frame);
        WebSocketFrame out = channel.readInbound();
        assertInstanceOf(TextWebSocketFrame.class, out);
        assertTrue(out.isFinalFragment());
        assertEquals(0, out.rsv());
        ByteBuf content = out.content();
        String text = content.toString(StandardCharsets.UTF_8);
        out.release();
        return text;
    }

    private static TextWebSocketFrame compressed(String text) {
        return new TextWebSocketFrame(true, WebSocketExtension.RSV1,
                Unpooled.wrappedBuffer(deflate(new Deflater(Deflater.DEFAULT_COMPRESSION, true), text)));
    }

    /** {@code text} through {@code deflater} with a sync flush, whole. */
    private static byte[] flushed(Deflater deflater, String text) {
        deflater.setInput(text.getBytes(StandardCharsets.UTF_8));
        byte[] out = new byte[text.length() + 64];
        return Arrays.copyOf(out, deflater.deflate(out, 0, out.length, Deflater.SYNC_FLUSH));
    }

    /** {@code text} through {@code deflater} with a sync flush, its last four bytes left out. */
    private static byte[] deflate(Deflater deflater, String text) {
        deflater.setInput(text.getBytes(StandardCharsets.UTF_8));
        byte[] out = new byte[text.length() + 64];
        int length = deflater.deflate(out, 0, out.length, Deflater.SYNC_FLUSH);
        return Arrays.copyOf(out, length - 4);
    }
}
