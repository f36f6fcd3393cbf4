package io.bayeux.transport.internal.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GzipResponsesTest {
    private static final int MIN = 1024;
    private final GzipCompressors compressors = new GzipCompressors(1);

    @Test
    void pipelinedRequestsGetTheirOwnEncodingInOrderFromOneReusedDeflater() throws IOException {
        EmbeddedChannel channel = new EmbeddedChannel(new GzipResponses(MIN, compressors));
        String[] accepts = {"gzip", null, "gzip, deflate, br", "deflate", "br;q=1.0, gzip;q=0.5", "gzip;q=0", "*", "*;q=0, identity"};
        boolean[] gzipped = {true, false, true, false, true, false, true, false};
        for (String accept : accepts) {
            channel.writeInbound(request(HttpMethod.POST, accept));
            channel.<FullHttpRequest>readInbound().release();
        }
        Random random = new Random(7);
        for (int i = 0; i < accepts.length; i++) {
            byte[] body = body(random, 1024 + 3000 * i);
            channel.writeOutbound(response(HttpResponseStatus.OK, body));
            FullHttpResponse out = channel.readOutbound();
            try {
                byte[] sent = ByteBufUtil.getBytes(out.content());
                assertEquals(sent.length, out.headers().getInt(HttpHeaderNames.CONTENT_LENGTH), accepts[i]);
                if (gzipped[i]) {
                    assertEquals("gzip", out.headers().get(HttpHeaderNames.CONTENT_ENCODING), accepts[i]);
                    assertTrue(sent.length < body.length, accepts[i]);
                    assertArrayEquals(body, gunzip(sent), accepts[i]);
                } else {
                    assertNull(out.headers().get(HttpHeaderNames.CONTENT_ENCODING), accepts[i]);
                    assertArrayEquals(body, sent, accepts[i]);
                }
            } finally {
                out.release();
            }
        }
        assertFalse(channel.finish());
    }

    @Test
    void smallEmptyAndHeadResponsesAndInterimOnesPassAsTheyAre() throws IOException {
        EmbeddedChannel channel = new EmbeddedChannel(new GzipResponses(MIN, compressors));
        channel.writeInbound(request(HttpMethod.POST, "gzip"));
        channel.writeInbound(request(HttpMethod.HEAD, "gzip"));
        channel.writeInbound(request(HttpMethod.GET, "gzip"));
        channel.writeInbound(request(HttpMethod.GET, "gzip"));
        for (int i = 0; i < 4; i++) {
            channel.<FullHttpRequest>readInbound().release();
        }
        Random random = new Random(3);
        // A 100 Continue answers no request: the first request's response follows it.
        FullHttpResponse interim = response(HttpResponseStatus.CONTINUE, new byte[0]);
        channel.writeOutbound(interim);
        assertSame(interim, channel.readOutbound());
        byte[] small = body(random, MIN - 1);
        channel.writeOutbound(response(HttpResponseStatus.OK, small));
        FullHttpResponse out = channel.readOutbound();
        assertNull(out.headers().get(HttpHeaderNames.CONTENT_ENCODING));
        assertArrayEquals(small, ByteBufUtil.getBytes(out.content()));
        out.release();
        // HEAD: never gzipped, whatever its body.
        byte[] large = body(random, 5000);
        channel.writeOutbound(response(HttpResponseStatus.OK, large));
        out = channel.readOutbound();
        assertNull(out.headers().get(HttpHeaderNames.CONTENT_ENCODING));
        out.release();
        channel.writeOutbound(response(HttpResponseStatus.NOT_MODIFIED, large));
        out = channel.readOutbound();
        assertNull(out.headers().get(HttpHeaderNames.CONTENT_ENCODING));
        out.release();
        // The last request's response is gzipped: the queue stayed in step.
        channel.writeOutbound(response(HttpResponseStatus.OK, large));
        out = channel.readOutbound();
        assertEquals("gzip", out.headers().get(HttpHeaderNames.CONTENT_ENCODING));
        assertArrayEquals(large, gunzip(ByteBufUtil.getBytes(out.content())));
        out.release();
        assertFalse(channel.finish());
    }

    @Test
    void anEncodedResponseAnswersItsRequestAndTheNextResponseTheNextRequest() throws IOException {
        GzipResponses gzip = new GzipResponses(MIN, compressors);
        EmbeddedChannel channel = new EmbeddedChannel(gzip);
        channel.writeInbound(request(HttpMethod.POST, null));
        assertFalse(gzip.lastAccepted());
        channel.writeInbound(request(HttpMethod.POST, "gzip"));
        assertTrue(gzip.lastAccepted());
        channel.writeInbound(request(HttpMethod.HEAD, "gzip"));
        assertFalse(gzip.lastAccepted(), "a HEAD's response is never gzipped");
        for (int i = 0; i < 3; i++) {
            channel.<FullHttpRequest>readInbound().release();
        }
        assertEquals(MIN, gzip.minBytes());
        // The first request (no gzip) gets an encoded response, which passes as it is.
        EncodedResponse encoded = EncodedResponse.encode(channel.alloc(), List.of("[{}]".getBytes(StandardCharsets.UTF_8)), null, true);
        channel.writeOutbound(encoded);
        assertSame(encoded, channel.readOutbound());
        encoded.release();
        // The second request accepted gzip: its full response is gzipped.
        byte[] large = body(new Random(5), 5000);
        channel.writeOutbound(response(HttpResponseStatus.OK, large));
        FullHttpResponse out = channel.readOutbound();
        assertEquals("gzip", out.headers().get(HttpHeaderNames.CONTENT_ENCODING));
        assertArrayEquals(large, gunzip(ByteBufUtil.getBytes(out.content())));
        out.release();
        // The HEAD's is not.
        channel.writeOutbound(response(HttpResponseStatus.OK, large));
        out = channel.readOutbound();
        assertNull(out.headers().get(HttpHeaderNames.CONTENT_ENCODING));
        out.release();
        assertFalse(channel.finish());
    }

    @Test
    void aSwitchingProtocolsResponseTakesTheHandlerOutOfThePipeline() {
        EmbeddedChannel channel = new EmbeddedChannel(new GzipResponses(MIN, compressors));
        channel.writeInbound(request(HttpMethod.GET, "gzip"));
        channel.<FullHttpRequest>readInbound().release();
        FullHttpResponse upgrade = response(HttpResponseStatus.SWITCHING_PROTOCOLS, new byte[0]);
        channel.writeOutbound(upgrade);
        assertSame(upgrade, channel.readOutbound());
        assertNull(channel.pipeline().get(GzipResponses.class));
        assertFalse(channel.finish());
    }

    @Test
    void acceptEncodingIsReadAsHttpSaysIt() {
        assertTrue(GzipResponses.acceptsGzip("gzip"));
        assertTrue(GzipResponses.acceptsGzip(" GZip ; q=0.1 "));
        assertTrue(GzipResponses.acceptsGzip("deflate, gzip"));
        assertTrue(GzipResponses.acceptsGzip("*"));
        assertTrue(GzipResponses.acceptsGzip("gzip;q=1, *;q=0"));
        assertFalse(GzipResponses.acceptsGzip(null));
        assertFalse(GzipResponses.acceptsGzip(""));
        assertFalse(GzipResponses.acceptsGzip("identity"));
        assertFalse(GzipResponses.acceptsGzip("x-gzip"));
        assertFalse(GzipResponses.acceptsGzip("gzip;q=0.000"));
        assertFalse(GzipResponses.acceptsGzip("*;q=0.1, gzip;q=0"));
    }

    private static FullHttpRequest request(HttpMethod method, String acceptEncoding) {
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, "/cometd");
        if (acceptEncoding != null) {
            request.headers().set(HttpHeaderNames.ACCEPT_ENCODING, acceptEncoding);
        }
        return request;
    }

    private static FullHttpResponse response(HttpResponseStatus status, byte[] body) {
        ByteBuf content = Unpooled.wrappedBuffer(body);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        return response;
    }

    /** JSON-like text with some randomness: compressible, different every time. */
    private static byte[] body(Random random, int length) {
        StringBuilder text = new StringBuilder(length + 64);
        while (text.length() < length) {
            text.append("{\"channel\":\"/chat/room/").append(random.nextInt(100)).append("\",\"id\":\"").append(random.nextInt()).append("\"},");
        }
        return text.substring(0, length).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] gunzip(byte[] gzipped) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gzipped))) {
            return in.readAllBytes();
        }
    }
}
