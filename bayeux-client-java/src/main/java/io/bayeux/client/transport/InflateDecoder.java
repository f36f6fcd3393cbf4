package io.bayeux.client.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtension;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionDecoder;
import io.netty.util.concurrent.FastThreadLocal;

import java.util.Arrays;
import java.util.List;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Inflates the messages the server sent compressed with {@code permessage-deflate} (RFC 7692):
 * a frame with RSV1 set and its continuation frames, the four bytes the sender left out put back
 * at the message's end, into a frame of the inflated bytes with RSV1 cleared (a whole message
 * in one frame becomes one frame whose content is an array of exactly its bytes).
 *
 * <p>A server that keeps context between messages (CometD's, by default) is inflated with a zlib
 * inflater of the connection's own, made at its first compressed message and ended when the
 * connection closes. Without context takeover (this project's server, by default) a message
 * needs no state from earlier ones: it is inflated with an inflater of the event loop's thread,
 * reset after each message, so that no connection holds zlib state (a cache per thread, as
 * Netty's allocator keeps: clients sharing threads share it, each message leaving it as it
 * found it; a message in several frames is inflated with one of its own, for its frames come
 * between other connections' messages).
 *
 * <p>A message that would inflate past the largest message allowed is refused once it reaches
 * it (a few bytes that inflate to gigabytes cost no more than that bound): the connection is
 * closed with 1009, the failure thrown to the pipeline. Loop-confined, as Netty's handlers.
 */
final class InflateDecoder extends WebSocketExtensionDecoder {
    private static final byte[] TAIL = {0, 0, (byte) 0xFF, (byte) 0xFF};
    /** The first output for a frame of n compressed bytes: a guess at its size, grown by doubling. */
    private static final int FIRST_RATIO = 4;
    private static final FastThreadLocal<Inflater> THREADS = new FastThreadLocal<>() {
        @Override
        protected Inflater initialValue() {
            return new Inflater(true);
        }

        @Override
        protected void onRemoval(Inflater inflater) {
            inflater.end();
        }
    };

    private final boolean serverKeepsContext;
    private final int maxMessageSize;
    /** The connection's own inflater: the server keeps context, or a message in several frames is being inflated; else null. */
    private Inflater own;
    /** Whether the frames that follow are continuations of a compressed message. */
    private boolean inMessage;
    /** Bytes the message being inflated came to in its earlier frames, for the bound. */
    private long inflated;
    /** The frame being inflated: where its bytes go, and how many there are so far; null between frames. */
    private byte[] output;
    private int length;

    /**
     * A decoder for a connection whose server keeps compression context between messages if
     * {@code serverKeepsContext}, refusing a message that inflates past {@code maxMessageSize}.
     */
    InflateDecoder(boolean serverKeepsContext, int maxMessageSize) {
        this.serverKeepsContext = serverKeepsContext;
        this.maxMessageSize = maxMessageSize;
    }

    @Override
    public boolean acceptInboundMessage(Object msg) {
        if (msg instanceof TextWebSocketFrame || msg instanceof BinaryWebSocketFrame) {
            return (((WebSocketFrame) msg).rsv() & WebSocketExtension.RSV1) != 0;
        }
        return msg instanceof ContinuationWebSocketFrame && inMessage;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, WebSocketFrame frame, List<Object> out) throws Exception {
        boolean first = !inMessage;
        boolean last = frame.isFinalFragment();
        Inflater in = inflater(first && last);
        byte[] bytes;
        try {
            bytes = inflate(in, frame.content(), last);
        } catch (DataFormatException | TooLarge x) {
            inMessage = false;
            inflated = 0;
            output = null;
            release(in);
            if (x instanceof TooLarge) {
                ctx.writeAndFlush(new CloseWebSocketFrame(WebSocketCloseStatus.MESSAGE_TOO_BIG)).addListener(ChannelFutureListener.CLOSE);
                throw new CorruptedWebSocketFrameException(WebSocketCloseStatus.MESSAGE_TOO_BIG, x.getMessage());
            }
            throw new CorruptedWebSocketFrameException(WebSocketCloseStatus.INVALID_PAYLOAD_DATA, "Not permessage-deflate data: " + x.getMessage());
        }
        inMessage = !last;
        if (last) {
            inflated = 0;
            release(in);
        }
        ByteBuf content = Unpooled.wrappedBuffer(bytes);
        int rsv = first ? frame.rsv() & ~WebSocketExtension.RSV1 : frame.rsv();
        if (!first) {
            out.add(new ContinuationWebSocketFrame(last, rsv, content));
        } else if (frame instanceof TextWebSocketFrame) {
            out.add(new TextWebSocketFrame(last, rsv, content));
        } else {
            out.add(new BinaryWebSocketFrame(last, rsv, content));
        }
    }

    /** The inflater for a frame: the connection's own, or for a message in one frame without context, the thread's. */
    private Inflater inflater(boolean wholeMessage) {
        if (own != null) {
            return own;
        }
        if (!serverKeepsContext && wholeMessage) {
            return THREADS.get();
        }
        own = new Inflater(true);
        return own;
    }

    /** After a message (or a failure): without context, the inflater is reset for the next message, or ended if it was the connection's. */
    private void release(Inflater in) {
        if (serverKeepsContext) {
            if (in.finished()) {
                // The message ended the stream (a final block): the next one starts a new stream.
                in.reset();
            }
            return;
        }
        if (in == own) {
            own.end();
            own = null;
        } else {
            in.reset();
        }
    }

    /** The bytes {@code compressed} inflates to, with the sender's left-out end if it is the message's {@code last} frame. */
    private byte[] inflate(Inflater in, ByteBuf compressed, boolean last) throws DataFormatException, TooLarge {
        int size = compressed.readableBytes();
        output = new byte[(int) Math.min(maxMessageSize - inflated + 1, Math.max(64L, (long) size * FIRST_RATIO))];
        length = 0;
        if (size > 0 && !in.finished()) {
            in.setInput(compressed.nioBuffer());
            drain(in);
        }
        if (last && !in.finished()) {
            in.setInput(TAIL);
            drain(in);
        }
        inflated += length;
        byte[] bytes = length == output.length ? output : Arrays.copyOf(output, length);
        output = null;
        return bytes;
    }

    /** Inflates what {@code in} was given into {@link #output} from {@link #length}, growing it up to one byte past the bound. */
    private void drain(Inflater in) throws DataFormatException, TooLarge {
        while (true) {
            if (length == output.length) {
                output = Arrays.copyOf(output, (int) Math.min(maxMessageSize - inflated + 1, output.length * 2L));
            }
            int n = in.inflate(output, length, output.length - length);
            length += n;
            if (inflated + length > maxMessageSize) {
                throw new TooLarge(maxMessageSize);
            }
            if (n == 0) {
                if (in.needsInput() || in.finished()) {
                    return;
                }
                if (in.needsDictionary()) {
                    throw new DataFormatException("a preset dictionary is not permessage-deflate");
                }
            }
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) throws Exception {
        end();
        super.handlerRemoved(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        end();
        super.channelInactive(ctx);
    }

    private void end() {
        if (own != null) {
            own.end();
            own = null;
        }
    }

    /** A message inflates past the largest allowed. */
    private static final class TooLarge extends Exception {
        TooLarge(int max) {
            super("message inflates past the largest allowed, " + max + " bytes", null, false, false);
        }
    }
}
