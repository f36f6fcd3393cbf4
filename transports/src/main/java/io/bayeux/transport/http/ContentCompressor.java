package io.bayeux.transport.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.MessageToByteEncoder;
import io.netty.handler.codec.compression.CompressionOptions;
import io.netty.handler.codec.compression.StandardCompressionOptions;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpContentCompressor;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponse;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * Netty's {@link HttpContentCompressor} (the same negotiation, thresholds and headers) whose gzip
 * and deflate encoders borrow a {@link Deflater} from a pool shared by the server's connections
 * instead of making one per response: a new {@code Deflater} allocates about 256 KiB of native
 * memory that the kernel zeroes page by page, several times the cost of compressing a 2 KiB
 * long-poll reply. Other encodings (brotli, zstd, when their libraries are present) are Netty's.
 */
public final class ContentCompressor extends HttpContentCompressor {
    private final int contentSizeThreshold;
    private final Deflaters deflaters;
    private ChannelHandlerContext ctx;

    /** Responses with fewer than {@code contentSizeThreshold} bytes go uncompressed. */
    public ContentCompressor(int contentSizeThreshold, Deflaters deflaters) {
        super(contentSizeThreshold, new CompressionOptions[0]);
        this.contentSizeThreshold = contentSizeThreshold;
        this.deflaters = deflaters;
    }

    /** The reusable deflaters of one server, at the default level of Netty's gzip and deflate options. Thread-safe. */
    public static final class Deflaters {
        /** Idle deflaters kept at most; more are ended when returned. */
        private static final int MAX_IDLE = 16;
        private final int level = StandardCompressionOptions.gzip().compressionLevel();
        /** Raw deflate streams, for gzip (which frames them itself). */
        private final ConcurrentLinkedQueue<Deflater> raw = new ConcurrentLinkedQueue<>();
        /** Zlib-framed streams, for the deflate encoding. */
        private final ConcurrentLinkedQueue<Deflater> zlib = new ConcurrentLinkedQueue<>();
        private final AtomicInteger idle = new AtomicInteger();

        Deflater borrow(boolean gzip) {
            Deflater deflater = (gzip ? raw : zlib).poll();
            if (deflater == null) {
                return new Deflater(level, gzip);
            }
            idle.decrementAndGet();
            return deflater;
        }

        void giveBack(Deflater deflater, boolean gzip) {
            if (idle.incrementAndGet() > MAX_IDLE) {
                idle.decrementAndGet();
                deflater.end();
                return;
            }
            deflater.reset();
            (gzip ? raw : zlib).add(deflater);
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
        this.ctx = ctx;
        super.handlerAdded(ctx);
    }

    @Override
    protected Result beginEncode(HttpResponse response, String acceptEncoding) throws Exception {
        if (response instanceof HttpContent content && content.content().readableBytes() < contentSizeThreshold
                || response.headers().contains(HttpHeaderNames.CONTENT_ENCODING)) {
            return null;
        }
        String encoding = determineEncoding(acceptEncoding);
        boolean gzip = "gzip".equals(encoding);
        if (gzip || "deflate".equals(encoding)) {
            return new Result(encoding, new EmbeddedChannel(ctx.channel().id(), ctx.channel().metadata().hasDisconnect(),
                    ctx.channel().config(), new PooledDeflaterEncoder(deflaters, gzip)));
        }
        return super.beginEncode(response, acceptEncoding);
    }

    /** Compresses what it is written into one gzip or zlib stream, ended when its channel closes. */
    static final class PooledDeflaterEncoder extends MessageToByteEncoder<ByteBuf> {
        private static final byte[] GZIP_HEADER = {0x1f, (byte) 0x8b, Deflater.DEFLATED, 0, 0, 0, 0, 0, 0, 0};
        private final Deflaters deflaters;
        private final boolean gzip;
        private final CRC32 crc;
        private Deflater deflater;
        private boolean headerWritten;
        private long inputBytes;

        PooledDeflaterEncoder(Deflaters deflaters, boolean gzip) {
            this.deflaters = deflaters;
            this.gzip = gzip;
            this.crc = gzip ? new CRC32() : null;
        }

        private Deflater deflater() {
            if (deflater == null) {
                deflater = deflaters.borrow(gzip);
            }
            return deflater;
        }

        @Override
        protected void encode(ChannelHandlerContext ctx, ByteBuf in, ByteBuf out) {
            if (gzip && !headerWritten) {
                out.writeBytes(GZIP_HEADER);
                headerWritten = true;
            }
            int length = in.readableBytes();
            if (length == 0) {
                return;
            }
            ByteBuffer input = in.nioBuffer(in.readerIndex(), length);
            if (gzip) {
                crc.update(input.duplicate());
            }
            inputBytes += length;
            Deflater d = deflater();
            d.setInput(input);
            // Flushed at each write, as Netty's encoder does, so that a streamed body goes out as it comes.
            while (deflate(d, out, Deflater.SYNC_FLUSH)) {
                // The output filled up: more to come.
            }
            in.skipBytes(length);
        }

        @Override
        protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, ByteBuf msg, boolean preferDirect) {
            // Compressed JSON is a fraction of its size; the buffer grows if need be.
            return ctx.alloc().heapBuffer(Math.max(64, msg.readableBytes() / 2 + 32));
        }

        /** Deflates into {@code out}'s free space (growing it first when little is left). @return whether that space filled up */
        private static boolean deflate(Deflater d, ByteBuf out, int flush) {
            out.ensureWritable(64);
            int space = out.writableBytes();
            int written = d.deflate(out.array(), out.arrayOffset() + out.writerIndex(), space, flush);
            out.writerIndex(out.writerIndex() + written);
            return written == space;
        }

        @Override
        public void close(ChannelHandlerContext ctx, ChannelPromise promise) throws Exception {
            try {
                ByteBuf footer = ctx.alloc().heapBuffer(64);
                if (gzip && !headerWritten) {
                    footer.writeBytes(GZIP_HEADER);
                    headerWritten = true;
                }
                Deflater d = deflater();
                d.finish();
                while (!d.finished()) {
                    deflate(d, footer, Deflater.NO_FLUSH);
                }
                if (gzip) {
                    footer.writeIntLE((int) crc.getValue());
                    footer.writeIntLE((int) inputBytes);
                }
                ctx.write(footer);
                ctx.flush();
            } finally {
                release();
            }
            ctx.close(promise);
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) throws Exception {
            release();
            super.handlerRemoved(ctx);
        }

        private void release() {
            Deflater d = deflater;
            if (d != null) {
                deflater = null;
                deflaters.giveBack(d, gzip);
            }
        }
    }
}
