package io.bayeux.transport.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.DefaultByteBufHolder;

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
