package io.bayeux.transport.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * When a shared frame's memory is freed: it is copied once per message and turn, kept until
 * the turn is over, and freed when the last frame that carries it is released, whichever
 * comes last. The allocator's own counter tells the live direct bytes.
 */
class SharedFramesTest {
    private static final byte[] BYTES = ("[{\"data\":\"" + "x".repeat(1100) + "\"}]").getBytes(StandardCharsets.UTF_8);
    private static final byte[] OTHER = ("[{\"data\":\"" + "y".repeat(1200) + "\"}]").getBytes(StandardCharsets.UTF_8);

    private final UnpooledByteBufAllocator alloc = new UnpooledByteBufAllocator(true);
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final SharedFrames frames = new SharedFrames(channel.eventLoop(), alloc);
    private ResourceLeakDetector.Level level;

    @BeforeEach
    void paranoid() {
        level = ResourceLeakDetector.getLevel();
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    }

    @AfterEach
    void restore() {
        channel.finishAndReleaseAll();
        ResourceLeakDetector.setLevel(level);
    }

    private long used() {
        return alloc.metric().usedDirectMemory();
    }

    private static String text(ByteBuf buffer) {
        return buffer.toString(StandardCharsets.UTF_8);
    }

    @Test
    void framesOfOneMessageInOneTurnShareOneCopy() {
        Object message = new Object();
        ByteBuf first = frames.share(message, BYTES);
        ByteBuf second = frames.share(message, BYTES);
        ByteBuf other = frames.share(new Object(), OTHER);
        ByteBuf third = frames.share(message, BYTES);

        assertEquals(BYTES.length + OTHER.length, used(), "one copy per message");
        assertEquals(first.memoryAddress(), second.memoryAddress());
        assertEquals(first.memoryAddress(), third.memoryAddress());
        assertNotEquals(first.memoryAddress(), other.memoryAddress());
        assertEquals(new String(BYTES, StandardCharsets.UTF_8), text(second));
        assertEquals(new String(OTHER, StandardCharsets.UTF_8), text(other));
        assertEquals(2, frames.kept());
        first.release();
        second.release();
        third.release();
        other.release();
        channel.runPendingTasks();
        assertEquals(0, used());
    }

    @Test
    void aBufferOutlivesItsTurnUntilItsLastFrameIsReleased() {
        Object message = new Object();
        ByteBuf written = frames.share(message, BYTES);
        ByteBuf waiting = frames.share(message, BYTES);
        written.release();

        channel.runPendingTasks();
        assertEquals(0, frames.kept(), "the turn is over: the cache let go");
        assertEquals(BYTES.length, used(), "a frame still waits to be written");
        assertEquals(new String(BYTES, StandardCharsets.UTF_8), text(waiting), "its bytes are intact");

        waiting.release();
        assertEquals(0, used(), "freed by the last frame, no garbage collection needed");
    }

    @Test
    void aBufferNoFrameHoldsIsFreedWhenItsTurnEnds() {
        frames.share(new Object(), BYTES).release();
        assertEquals(BYTES.length, used(), "kept for the rest of the turn");
        channel.runPendingTasks();
        assertEquals(0, used());
    }

    @Test
    void aMessageStillQueuedAfterItsTurnGetsAFreshCopyInALaterTurn() {
        Object message = new Object();
        ByteBuf early = frames.share(message, BYTES);
        channel.runPendingTasks();
        ByteBuf late = frames.share(message, BYTES);

        assertNotEquals(early.memoryAddress(), late.memoryAddress());
        assertEquals(2L * BYTES.length, used());
        early.release();
        assertEquals(new String(BYTES, StandardCharsets.UTF_8), text(late));
        late.release();
        channel.runPendingTasks();
        assertEquals(0, used());
    }

    @Test
    void offTheLoopEveryCallGetsItsOwnBuffer() throws Exception {
        DefaultEventLoop loop = new DefaultEventLoop();
        try {
            SharedFrames offLoop = new SharedFrames(loop, alloc);
            Object message = new Object();
            ByteBuf one = offLoop.share(message, BYTES);
            ByteBuf two = offLoop.share(message, BYTES);
            assertNotEquals(one.memoryAddress(), two.memoryAddress());
            assertEquals(1, one.refCnt());
            one.release();
            two.release();
            assertEquals(0, used());
        } finally {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void wholeFramesOfOneMessageInOneTurnShareOneCopyWithTheirHeader() {
        Object message = new Object();
        byte[] small = "[{\"data\":1}]".getBytes(StandardCharsets.UTF_8);
        ByteBuf first = frames.textFrame(message, small);
        ByteBuf second = frames.textFrame(message, small);
        ByteBuf large = frames.textFrame(new Object(), BYTES);

        assertEquals(first.memoryAddress(), second.memoryAddress(), "one copy per message and turn");
        assertEquals(2 + small.length + 4 + BYTES.length, used(), "header and payload, once each");
        assertEquals(0x81, first.getUnsignedByte(0), "a final text frame");
        assertEquals(small.length, first.getUnsignedByte(1), "a 7-bit length, no mask");
        assertEquals(new String(small, StandardCharsets.UTF_8), first.toString(2, small.length, StandardCharsets.UTF_8));
        assertEquals(126, large.getUnsignedByte(1), "a 16-bit length");
        assertEquals(BYTES.length, large.getUnsignedShort(2));
        assertEquals(new String(BYTES, StandardCharsets.UTF_8), large.toString(4, BYTES.length, StandardCharsets.UTF_8));
        assertEquals(2, frames.kept());

        first.release();
        channel.runPendingTasks();
        assertEquals(0, frames.kept(), "the turn is over");
        assertEquals(new String(small, StandardCharsets.UTF_8), second.toString(2, small.length, StandardCharsets.UTF_8), "a frame still waiting is intact");
        second.release();
        large.release();
        assertEquals(0, used(), "freed by the last frames");
    }
}
