package io.bayeux.transport.internal.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.DefaultByteBufHolder;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A Bayeux response (200, JSON) encoded whole: status line, headers and body in one direct
 * buffer, written by {@link HttpCodec}'s encoder as it is. The bytes are those Netty's encoder
 * makes of the same response built as a {@code FullHttpResponse} (same headers, same order):
 * {@code content-type}, {@code cache-control}, an optional {@code set-cookie},
 * {@code content-length} and {@code connection}.
 *
 * <p>The body is the messages' JSON arrays of one (a broadcast's computed once and shared)
 * joined into one array, copied once, into the response's own buffer.
 */
public final class EncodedResponse extends DefaultByteBufHolder {
    private static final byte[] HEAD = ascii("HTTP/1.1 200 OK\r\n"
            + "content-type: application/json;charset=UTF-8\r\n"
            + "cache-control: no-cache, no-store\r\n");
    private static final byte[] CONTENT_ENCODING_GZIP = ascii("content-encoding: gzip\r\n");
    private static final byte[] SET_COOKIE = ascii("set-cookie: ");
    private static final byte[] CONTENT_LENGTH = ascii("content-length: ");
    private static final byte[] KEEP_ALIVE = ascii("\r\nconnection: keep-alive\r\n\r\n");
    private static final byte[] CLOSE = ascii("\r\nconnection: close\r\n\r\n");
    private static final byte[] CRLF = ascii("\r\n");

    private EncodedResponse(ByteBuf content) {
        super(content);
    }

    /** The length of the body {@link #encode} makes of {@code arrays}: their elements in one array. */
    public static int bodyLength(List<byte[]> arrays) {
        if (arrays.isEmpty()) {
            return 2;
        }
        // '[' and ']' once, a ',' between two elements: each array of one brings its element.
        int length = 1;
        for (byte[] array : arrays) {
            length += array.length - 1;
        }
        return length;
    }

    /**
     * The response carrying {@code arrays} (each a JSON array of one element, {@code [ {...} ]}),
     * as one array of their elements.
     *
     * @param setCookie the {@code Set-Cookie} value, or null for none
     * @param keepAlive whether the connection stays open ({@code connection: keep-alive}) or not ({@code close})
     */
    public static EncodedResponse encode(ByteBufAllocator alloc, List<byte[]> arrays, String setCookie, boolean keepAlive) {
        int bodyLength = bodyLength(arrays);
        String length = Integer.toString(bodyLength);
        byte[] end = keepAlive ? KEEP_ALIVE : CLOSE;
        int size = HEAD.length + (setCookie == null ? 0 : SET_COOKIE.length + setCookie.length() + CRLF.length)
                + CONTENT_LENGTH.length + length.length() + end.length + bodyLength;
        ByteBuf out = alloc.directBuffer(size, size);
        try {
            out.writeBytes(HEAD);
            if (setCookie != null) {
                out.writeBytes(SET_COOKIE);
                out.writeCharSequence(setCookie, StandardCharsets.US_ASCII);
                out.writeBytes(CRLF);
            }
            out.writeBytes(CONTENT_LENGTH);
            out.writeCharSequence(length, StandardCharsets.US_ASCII);
            out.writeBytes(end);
            writeBody(out, arrays);
        } catch (RuntimeException | Error x) {
            out.release();
            throw x;
        }
        return new EncodedResponse(out);
    }

    /**
     * As {@link #encode}, with the body gzipped by {@code gzip}'s deflater ({@code content-encoding: gzip}
     * after {@code cache-control}): on the event loop of a connection whose pipeline holds {@code gzip}.
     * The body is deflated into the response's own buffer, after room left for the headers, which
     * are written in front of it once its length is known: still one buffer, and no response object.
     */
    public static EncodedResponse encodeGzipped(ByteBufAllocator alloc, List<byte[]> arrays, String setCookie, boolean keepAlive,
                                                GzipCompressors gzip) {
        byte[] body = join(arrays);
        byte[] end = keepAlive ? KEEP_ALIVE : CLOSE;
        int cookie = setCookie == null ? 0 : SET_COOKIE.length + setCookie.length() + CRLF.length;
        // The longest headers: a content-length of ten digits.
        int room = HEAD.length + CONTENT_ENCODING_GZIP.length + cookie + CONTENT_LENGTH.length + 10 + end.length;
        ByteBuf out = alloc.directBuffer(room + GzipCompressors.maxGzippedLength(body.length));
        try {
            out.writerIndex(room);
            gzip.gzip(ByteBuffer.wrap(body), out);
            String length = Integer.toString(out.writerIndex() - room);
            int at = room - (HEAD.length + CONTENT_ENCODING_GZIP.length + cookie + CONTENT_LENGTH.length + length.length() + end.length);
            out.readerIndex(at);
            out.setBytes(at, HEAD);
            at += HEAD.length;
            out.setBytes(at, CONTENT_ENCODING_GZIP);
            at += CONTENT_ENCODING_GZIP.length;
            if (setCookie != null) {
                out.setBytes(at, SET_COOKIE);
                at += SET_COOKIE.length;
                at += out.setCharSequence(at, setCookie, StandardCharsets.US_ASCII);
                out.setBytes(at, CRLF);
                at += CRLF.length;
            }
            out.setBytes(at, CONTENT_LENGTH);
            at += CONTENT_LENGTH.length;
            at += out.setCharSequence(at, length, StandardCharsets.US_ASCII);
            out.setBytes(at, end);
        } catch (RuntimeException | Error x) {
            out.release();
            throw x;
        }
        return new EncodedResponse(out);
    }

    /** JSON arrays of one element each, joined into one array of their elements (the body {@link #encode} writes). */
    public static byte[] join(List<byte[]> arrays) {
        if (arrays.size() == 1) {
            return arrays.get(0);
        }
        byte[] out = new byte[bodyLength(arrays)];
        out[0] = '[';
        int at = 1;
        for (int i = 0; i < arrays.size(); i++) {
            byte[] array = arrays.get(i);
            if (i > 0) {
                out[at++] = ',';
            }
            System.arraycopy(array, 1, out, at, array.length - 2);
            at += array.length - 2;
        }
        out[out.length - 1] = ']';
        return out;
    }

    private static void writeBody(ByteBuf out, List<byte[]> arrays) {
        int n = arrays.size();
        if (n == 0) {
            out.writeByte('[').writeByte(']');
        } else if (n == 1) {
            out.writeBytes(arrays.get(0));
        } else {
            out.writeByte('[');
            for (int i = 0; i < n; i++) {
                byte[] array = arrays.get(i);
                if (i > 0) {
                    out.writeByte(',');
                }
                out.writeBytes(array, 1, array.length - 2);
            }
            out.writeByte(']');
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public EncodedResponse replace(ByteBuf content) {
        return new EncodedResponse(content);
    }

    @Override
    public String toString() {
        return "EncodedResponse[" + content().readableBytes() + " bytes]";
    }
}
