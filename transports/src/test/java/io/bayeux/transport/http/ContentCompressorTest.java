package io.bayeux.transport.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import java.util.zip.InflaterInputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The compressor with reused deflaters answers as Netty's own does: the encoding the client
 * prefers, the Content-Length of the compressed body, nothing compressed under the threshold, and
 * every response (the deflaters passing from one to the next, one connection to another) whole.
 */
class ContentCompressorTest {
    private static final int THRESHOLD = 1024;
    private final ContentCompressor.Deflaters deflaters = new ContentCompressor.Deflaters();

    @Test
    void gzipResponsesInflateToTheirBodyOneAfterTheOtherOnSeveralConnections() throws Exception {
        EmbeddedChannel first = channel();
        EmbeddedChannel second = channel();
        Random random = new Random(3);
        for (int i = 0; i < 40; i++) {
            byte[] body = json(THRESHOLD + random.nextInt(20_000), random);
            EmbeddedChannel channel = i % 3 == 0 ? second : first;
            Response response = exchange(channel, "gzip, deflate", body);
            assertEquals("gzip", response.headers.headers().get(HttpHeaderNames.CONTENT_ENCODING));
            assertEquals(response.body.length, response.headers.headers().getInt(HttpHeaderNames.CONTENT_LENGTH));
            assertArrayEquals(body, inflate(new GZIPInputStream(new ByteArrayInputStream(response.body))));
        }
        first.finishAndReleaseAll();
        second.finishAndReleaseAll();
    }

    @Test
    void deflateIsChosenWhenTheClientPrefersIt() throws Exception {
        EmbeddedChannel channel = channel();
        for (int i = 0; i < 3; i++) {
            byte[] body = json(5_000, new Random(i));
            Response response = exchange(channel, "gzip;q=0.5, deflate", body);
            assertEquals("deflate", response.headers.headers().get(HttpHeaderNames.CONTENT_ENCODING));
            assertArrayEquals(body, inflate(new InflaterInputStream(new ByteArrayInputStream(response.body))));
        }
        channel.finishAndReleaseAll();
    }

    @Test
    void smallResponsesAndClientsThatAcceptNoCompressionGetTheBodyAsIs() throws Exception {
        EmbeddedChannel channel = channel();
        byte[] small = json(THRESHOLD - 1, new Random(1));
        Response response = exchange(channel, "gzip", small);
        assertNull(response.headers.headers().get(HttpHeaderNames.CONTENT_ENCODING));
        assertArrayEquals(small, response.body);
        byte[] large = json(10_000, new Random(2));
        response = exchange(channel, null, large);
        assertNull(response.headers.headers().get(HttpHeaderNames.CONTENT_ENCODING));
        assertArrayEquals(large, response.body);
        channel.finishAndReleaseAll();
    }

    private EmbeddedChannel channel() {
        return new EmbeddedChannel(new ContentCompressor(THRESHOLD, deflaters));
    }

    private record Response(HttpResponse headers, byte[] body) {
    }

    private static Response exchange(EmbeddedChannel channel, String acceptEncoding, byte[] body) {
        DefaultFullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/cometd");
        if (acceptEncoding != null) {
            request.headers().set(HttpHeaderNames.ACCEPT_ENCODING, acceptEncoding);
        }
        channel.writeInbound(request);
        ReferenceCountUtil.release(channel.readInbound());
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(body));
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        channel.writeOutbound(response);
        HttpResponse head = null;
        ByteBuf content = Unpooled.buffer();
        Object message;
        while ((message = channel.readOutbound()) != null) {
            if (message instanceof HttpResponse r) {
                head = r;
            }
            if (message instanceof HttpContent c) {
                content.writeBytes(c.content());
            }
            ReferenceCountUtil.release(message);
        }
        byte[] bytes = ByteBufUtil.getBytes(content);
        content.release();
        return new Response(head, bytes);
    }

    private static byte[] inflate(InputStream in) throws Exception {
        try (in) {
            return in.readAllBytes();
        }
    }

    /** A JSON array of chat-like messages of about {@code size} bytes. */
    private static byte[] json(int size, Random random) {
        StringBuilder out = new StringBuilder("[");
        while (out.length() < size - 2) {
            out.append("{\"channel\":\"/chat/room/").append(random.nextInt(100)).append("\",\"data\":{\"text\":\"")
                    .append(Long.toHexString(random.nextLong())).append("\"}},");
        }
        out.setLength(Math.min(out.length(), size - 1));
        out.append(']');
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }
}
