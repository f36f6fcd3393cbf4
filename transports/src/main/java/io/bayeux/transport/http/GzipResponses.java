package io.bayeux.transport.http;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.FastThreadLocal;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * Gzips the body of a whole response ({@link FullHttpResponse}, as every response of this
 * server is) of at least {@code minBytes} when its request accepted gzip: in one go, with the
 * deflater of the event loop's thread (reset, never made again), straight into one buffer that
 * becomes the new body. Smaller responses, and those of requests that did not accept gzip, pass
 * as they are at the cost of one header look-up per request; Netty's
 * {@code HttpContentCompressor} instead makes a compressor (a {@link Deflater} and its 256 KiB
 * of native memory) and an embedded channel per compressed response. Bayeux replies made whole
 * on the loop ({@link EncodedResponse}) are gzipped as they are made, with the same deflater
 * ({@link #gzip}), and pass here as they are.
 *
 * <p>Requests may come pipelined, so what each accepted waits in order until its response goes
 * out. Interim responses ({@code 100 Continue}) answer no request; the {@code 101} of a
 * WebSocket upgrade ends this handler's part (it leaves the pipeline).
 */
public final class GzipResponses extends ChannelDuplexHandler {
    public static final String NAME = "gzip";
    /** The gzip member header: deflate, no flags, no time, no extra flags, unknown OS. */
    private static final byte[] HEADER = {0x1f, (byte) 0x8b, Deflater.DEFLATED, 0, 0, 0, 0, 0, 0, (byte) 0xff};
    private static final int TRAILER = 8;
    /** What each request accepted, in order: {@link Boolean#TRUE} for gzip; the first without a queue. */
    private Boolean first;
    private ArrayDeque<Boolean> more;
    /** What the last request read accepted (see {@link #lastAccepted()}). */
    private boolean lastAccepted;
    private final int minBytes;
    /** One deflater (and checksum) per event loop thread, for every connection on it and at this level. */
    private final FastThreadLocal<Compressor> compressors;

    /** Gzips bodies of {@code minBytes} and more with {@code compressors} (shared by the server's connections, they say the level). */
    public GzipResponses(int minBytes, Compressors compressors) {
        this.minBytes = minBytes;
        this.compressors = compressors.local;
    }

    /** The per-thread compressors of one server (and level): shared by its connections' handlers. */
    public static final class Compressors {
        private final FastThreadLocal<Compressor> local;

        /** Deflaters at {@code level}: 1 fastest to 9 smallest. */
        public Compressors(int level) {
            if (level < 1 || level > 9) {
                throw new IllegalArgumentException("gzip level must be 1 to 9: " + level);
            }
            this.local = new FastThreadLocal<>() {
                @Override
                protected Compressor initialValue() {
                    return new Compressor(level);
                }

                @Override
                protected void onRemoval(Compressor compressor) {
                    compressor.deflater.end();
                }
            };
        }
    }

    private static final class Compressor {
        final Deflater deflater;
        final CRC32 crc = new CRC32();

        Compressor(int level) {
            deflater = new Deflater(level, true);
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (msg instanceof HttpRequest request) {
            Boolean accepts = !request.method().equals(HttpMethod.HEAD) && acceptsGzip(request.headers().get(HttpHeaderNames.ACCEPT_ENCODING))
                    ? Boolean.TRUE : Boolean.FALSE;
            lastAccepted = accepts;
            if (first == null) {
                first = accepts;
            } else {
                if (more == null) {
                    more = new ArrayDeque<>(4);
                }
                more.add(accepts);
            }
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (msg instanceof EncodedResponse) {
            // Made whole by the Bayeux handler, gzipped already when it had to be: it answers its request all the same.
            nextAccepted();
            ctx.write(msg, promise);
            return;
        }
        if (!(msg instanceof HttpResponse response)) {
            ctx.write(msg, promise);
            return;
        }
        int code = response.status().code();
        if (code == HttpResponseStatus.SWITCHING_PROTOCOLS.code()) {
            ctx.write(msg, promise);
            ctx.pipeline().remove(this);
            return;
        }
        if (code < 200) {
            // Interim: the request's own response is still to come.
            ctx.write(msg, promise);
            return;
        }
        Boolean accepted = nextAccepted();
        if (accepted == Boolean.TRUE && code != 204 && code != 304 && response.protocolVersion() != HttpVersion.HTTP_1_0
                && response instanceof FullHttpResponse full && full.content().readableBytes() >= minBytes
                && !full.headers().contains(HttpHeaderNames.CONTENT_ENCODING)) {
            ctx.write(compress(ctx, full), promise);
        } else {
            ctx.write(msg, promise);
        }
    }

    /** What the oldest request not answered yet accepted, now answered. */
    private Boolean nextAccepted() {
        Boolean accepted = first;
        if (more != null && !more.isEmpty()) {
            first = more.poll();
        } else {
            first = null;
        }
        return accepted;
    }

    /**
     * Whether the request read last accepted gzip (and is not a {@code HEAD}): what the handlers
     * after this one read of the request they are given. On the event loop.
     */
    public boolean lastAccepted() {
        return lastAccepted;
    }

    /** The body length from which a 200 response to a request that accepted gzip is gzipped here. */
    public int minBytes() {
        return minBytes;
    }

    /** {@code response} with its body gzipped (its own released), Content-Encoding and Content-Length set. */
    private FullHttpResponse compress(ChannelHandlerContext ctx, FullHttpResponse response) {
        ByteBuf content = response.content();
        int length = content.readableBytes();
        ByteBuf out = ctx.alloc().directBuffer(maxGzippedLength(length));
        try {
            writeMember(compressors.get(), content.nioBuffer(), out);
        } catch (RuntimeException | Error x) {
            out.release();
            throw x;
        }
        HttpHeaders headers = response.headers();
        FullHttpResponse gzipped = new DefaultFullHttpResponse(response.protocolVersion(), response.status(), out, headers, response.trailingHeaders());
        content.release();
        headers.set(HttpHeaderNames.CONTENT_ENCODING, HttpHeaderValues.GZIP);
        headers.setInt(HttpHeaderNames.CONTENT_LENGTH, out.readableBytes());
        return gzipped;
    }

    /**
     * Writes {@code body} gzipped into {@code out} (grown if it must be), with the event loop's
     * deflater: on the loop of a connection of this handler's pipeline. For responses made
     * whole on the loop ({@link EncodedResponse#encodeGzipped}).
     */
    void gzip(byte[] body, ByteBuf out) {
        writeMember(compressors.get(), ByteBuffer.wrap(body), out);
    }

    /** Room enough for {@code length} bytes gzipped (deflate's worst case is a few bytes per 16 KiB block over the input). */
    static int maxGzippedLength(int length) {
        return HEADER.length + length + (length >> 12) + 64 + TRAILER;
    }

    /** One gzip member of {@code input}'s bytes (left as they are) at {@code out}'s writer index. */
    private static void writeMember(Compressor compressor, ByteBuffer input, ByteBuf out) {
        Deflater deflater = compressor.deflater;
        CRC32 crc = compressor.crc;
        int length = input.remaining();
        try {
            out.writeBytes(HEADER);
            crc.update(input.duplicate());
            deflater.setInput(input.duplicate());
            deflater.finish();
            while (!deflater.finished()) {
                if (!out.isWritable(64)) {
                    out.ensureWritable(Math.max(1024, out.writableBytes()));
                }
                ByteBuffer target = out.internalNioBuffer(out.writerIndex(), out.writableBytes());
                int wrote = deflater.deflate(target);
                out.writerIndex(out.writerIndex() + wrote);
            }
            out.writeIntLE((int) crc.getValue());
            out.writeIntLE(length);
        } finally {
            deflater.reset();
            crc.reset();
        }
    }

    /**
     * Whether an Accept-Encoding header names {@code gzip} (or {@code *}) with a weight other
     * than 0, in any case; false for none.
     */
    static boolean acceptsGzip(String acceptEncoding) {
        if (acceptEncoding == null) {
            return false;
        }
        int length = acceptEncoding.length();
        int from = 0;
        boolean star = false;
        while (from < length) {
            int comma = acceptEncoding.indexOf(',', from);
            int end = comma < 0 ? length : comma;
            int semicolon = acceptEncoding.indexOf(';', from);
            int nameEnd = semicolon >= 0 && semicolon < end ? semicolon : end;
            int begin = from;
            while (begin < nameEnd && acceptEncoding.charAt(begin) <= ' ') {
                begin++;
            }
            int stop = nameEnd;
            while (stop > begin && acceptEncoding.charAt(stop - 1) <= ' ') {
                stop--;
            }
            boolean gzip = stop - begin == 4 && acceptEncoding.regionMatches(true, begin, "gzip", 0, 4);
            boolean any = stop - begin == 1 && acceptEncoding.charAt(begin) == '*';
            if (gzip || any) {
                boolean allowed = nameEnd == end || !zeroWeight(acceptEncoding, nameEnd + 1, end);
                if (gzip) {
                    return allowed;
                }
                star = allowed;
            }
            from = end + 1;
        }
        return star;
    }

    /** Whether the parameters in {@code s[from, to)} give {@code q=0} (0, 0., 0.0, 0.00, 0.000). */
    private static boolean zeroWeight(String s, int from, int to) {
        String params = s.substring(from, to).trim();
        for (String param : params.split(";")) {
            String p = param.trim();
            if (p.length() > 2 && (p.charAt(0) == 'q' || p.charAt(0) == 'Q') && p.charAt(1) == '=') {
                String value = p.substring(2).trim();
                try {
                    return Double.parseDouble(value) == 0;
                } catch (NumberFormatException x) {
                    return false;
                }
            }
        }
        return false;
    }
}
