package io.bayeux.transport.internal.http;

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

import java.util.ArrayDeque;
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
 * ({@link #compressors()}), and pass here as they are.
 *
 * <p>Requests may come pipelined, so what each accepted waits in order until its response goes
 * out. Interim responses ({@code 100 Continue}) answer no request; the {@code 101} of a
 * WebSocket upgrade ends this handler's part (it leaves the pipeline).
 */
public final class GzipResponses extends ChannelDuplexHandler {
    public static final String NAME = "gzip";
    /** What each request accepted, in order: {@link Boolean#TRUE} for gzip; the first without a queue. */
    private Boolean first;
    private ArrayDeque<Boolean> more;
    /** What the last request read accepted (see {@link #lastAccepted()}). */
    private boolean lastAccepted;
    private final int minBytes;
    /** One deflater (and checksum) per event loop thread, for every connection on it and at this level. */
    private final GzipCompressors compressors;

    /** Gzips bodies of {@code minBytes} and more with {@code compressors} (shared by the server's connections, they say the level). */
    public GzipResponses(int minBytes, GzipCompressors compressors) {
        this.minBytes = minBytes;
        this.compressors = compressors;
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

    /** The deflaters this handler gzips with: those of the event loop's thread gzip a reply made whole on the loop too. */
    GzipCompressors compressors() {
        return compressors;
    }

    /** The body length from which a 200 response to a request that accepted gzip is gzipped here. */
    public int minBytes() {
        return minBytes;
    }

    /** {@code response} with its body gzipped (its own released), Content-Encoding and Content-Length set. */
    private FullHttpResponse compress(ChannelHandlerContext ctx, FullHttpResponse response) {
        ByteBuf content = response.content();
        int length = content.readableBytes();
        ByteBuf out = ctx.alloc().directBuffer(GzipCompressors.maxGzippedLength(length));
        try {
            compressors.gzip(content.nioBuffer(), out);
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
