package io.bayeux.transport.internal.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

class HttpCodecTest {
    private static final byte[] ONE = "[{\"channel\":\"/meta/connect\",\"successful\":true}]".getBytes(StandardCharsets.UTF_8);
    private static final byte[] TWO = "[{\"channel\":\"/chat/room/7\",\"data\":{\"text\":\"hello\"}}]".getBytes(StandardCharsets.UTF_8);
    private static final byte[] THREE = "[{\"channel\":\"/chat/room/9\",\"data\":{\"text\":\"h\\u00e9\"}}]".getBytes(StandardCharsets.UTF_8);

    @Test
    void anEncodedResponseIsByteForByteWhatNettyEncodesOfTheSameFullResponse() {
        String cookie = "BAYEUX_BROWSER=0123456789abcdef0123456789abcdef; Path=/; HttpOnly; SameSite=Lax";
        List<List<byte[]>> bodies = List.of(List.of(), List.of(ONE), List.of(TWO, ONE), List.of(TWO, THREE, ONE));
        for (List<byte[]> arrays : bodies) {
            for (String setCookie : new String[] {null, cookie}) {
                for (boolean keepAlive : new boolean[] {true, false}) {
                    String what = arrays.size() + " messages, cookie " + (setCookie != null) + ", keep-alive " + keepAlive;
                    EncodedResponse encoded = EncodedResponse.encode(UnpooledByteBufAllocator.DEFAULT, arrays, setCookie, keepAlive);
                    try {
                        assertEquals(nettyEncoded(arrays, setCookie, keepAlive), encoded.content().toString(StandardCharsets.UTF_8), what);
                        assertEquals(encoded.content().capacity(), encoded.content().readableBytes(), what + ": the buffer is sized exactly");
                    } finally {
                        encoded.release();
                    }
                }
            }
        }
    }

    @Test
    void aGzippedEncodedResponseCarriesTheJoinedBodyGzippedAfterItsHeaders() throws Exception {
        GzipResponses gzip = new GzipResponses(0, new GzipCompressors(1));
        String cookie = "BAYEUX_BROWSER=0123456789abcdef0123456789abcdef; Path=/; HttpOnly; SameSite=Lax";
        byte[] big = ("[{\"channel\":\"/chat\",\"data\":\"" + "chat ".repeat(2_000) + "\"}]").getBytes(StandardCharsets.UTF_8);
        List<List<byte[]>> bodies = List.of(List.of(), List.of(ONE), List.of(TWO, THREE, ONE), List.of(big, TWO, ONE));
        for (List<byte[]> arrays : bodies) {
            for (String setCookie : new String[] {null, cookie}) {
                for (boolean keepAlive : new boolean[] {true, false}) {
                    String what = arrays.size() + " messages, cookie " + (setCookie != null) + ", keep-alive " + keepAlive;
                    EncodedResponse encoded = EncodedResponse.encodeGzipped(UnpooledByteBufAllocator.DEFAULT, arrays, setCookie, keepAlive, gzip.compressors());
                    try {
                        byte[] bytes = ByteBufUtil.getBytes(encoded.content());
                        int headEnd = indexOf(bytes, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII)) + 4;
                        byte[] body = Arrays.copyOfRange(bytes, headEnd, bytes.length);
                        String expectedHead = "HTTP/1.1 200 OK\r\n"
                                + "content-type: application/json;charset=UTF-8\r\n"
                                + "cache-control: no-cache, no-store\r\n"
                                + "content-encoding: gzip\r\n"
                                + (setCookie == null ? "" : "set-cookie: " + setCookie + "\r\n")
                                + "content-length: " + body.length + "\r\n"
                                + "connection: " + (keepAlive ? "keep-alive" : "close") + "\r\n\r\n";
                        assertEquals(expectedHead, new String(bytes, 0, headEnd, StandardCharsets.US_ASCII), what);
                        byte[] json;
                        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(body))) {
                            json = in.readAllBytes();
                        }
                        assertArrayEquals(EncodedResponse.join(arrays), json, what);
                    } finally {
                        encoded.release();
                    }
                }
            }
        }
    }

    private static int indexOf(byte[] bytes, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= bytes.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (bytes[i + j] != part[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    @Test
    void theJoinedBodyIsOneArrayOfTheMessages() {
        assertEquals("[]", new String(EncodedResponse.join(List.of()), StandardCharsets.UTF_8));
        assertEquals(new String(ONE, StandardCharsets.UTF_8), new String(EncodedResponse.join(List.of(ONE)), StandardCharsets.UTF_8));
        assertEquals("[{\"channel\":\"/chat/room/7\",\"data\":{\"text\":\"hello\"}},{\"channel\":\"/meta/connect\",\"successful\":true}]",
                new String(EncodedResponse.join(List.of(TWO, ONE)), StandardCharsets.UTF_8));
        assertEquals(EncodedResponse.join(List.of(TWO, THREE, ONE)).length, EncodedResponse.bodyLength(List.of(TWO, THREE, ONE)));
    }

    @Test
    void pipelinedResponsesEachAnswerTheirOwnRequestAndAHeadGetsNoBody() {
        EmbeddedChannel channel = new EmbeddedChannel();
        HttpCodec.addLast(channel.pipeline(), new HttpDecoderConfig());
        channel.writeInbound(Unpooled.copiedBuffer(
                "POST /cometd HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n[]"
                        + "HEAD /index.html HTTP/1.1\r\nHost: a\r\n\r\n"
                        + "POST /cometd HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n[]"
                        + "HEAD /index.html HTTP/1.1\r\nHost: a\r\n\r\n", StandardCharsets.US_ASCII));
        int requests = 0;
        for (Object in; (in = channel.readInbound()) != null; ) {
            if (in instanceof HttpRequest) {
                requests++;
            }
            ReferenceCountUtil.release(in);
        }
        assertEquals(4, requests);
        // The POST: an encoded response goes out as its bytes.
        channel.writeOutbound(EncodedResponse.encode(channel.alloc(), List.of(ONE), null, true));
        assertEquals(nettyEncoded(List.of(ONE), null, true), readOutbound(channel));
        // The HEAD: headers only, though the response has a body.
        channel.writeOutbound(full("hello"));
        String head = readOutbound(channel);
        assertEquals("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n", head);
        // The second POST: a full response keeps its body.
        channel.writeOutbound(full("hello"));
        assertEquals("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello", readOutbound(channel));
        // The second HEAD, after them: headers only again, the methods stayed in step.
        channel.writeOutbound(full("hello"));
        assertEquals("HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n", readOutbound(channel));
        assertFalse(channel.finish());
    }

    @Test
    void theEncoderComesBeforeTheDecoderAndBothAreFoundByTheirNettyTypes() {
        EmbeddedChannel channel = new EmbeddedChannel();
        HttpCodec.addLast(channel.pipeline(), new HttpDecoderConfig());
        List<String> names = new ArrayList<>(channel.pipeline().names());
        assertEquals(names.indexOf(HttpCodec.ENCODER_NAME) + 1, names.indexOf(HttpCodec.DECODER_NAME));
        assertNotNull(channel.pipeline().context(HttpResponseEncoder.class));
        assertNotNull(channel.pipeline().context(io.netty.handler.codec.http.HttpRequestDecoder.class));
        assertNull(channel.pipeline().get("http"));
        assertFalse(channel.finish());
    }

    /** What Netty's encoder writes for the full response HttpRequestHandler would otherwise make. */
    private static String nettyEncoded(List<byte[]> arrays, String setCookie, boolean keepAlive) {
        byte[] body = EncodedResponse.join(arrays);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(body));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json;charset=UTF-8");
        response.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-cache, no-store");
        if (setCookie != null) {
            response.headers().add(HttpHeaderNames.SET_COOKIE, setCookie);
        }
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
        response.headers().set(HttpHeaderNames.CONNECTION, keepAlive ? HttpHeaderValues.KEEP_ALIVE : HttpHeaderValues.CLOSE);
        EmbeddedChannel encoder = new EmbeddedChannel(new HttpResponseEncoder());
        encoder.writeOutbound(response);
        String out = readOutbound(encoder);
        assertFalse(encoder.finish());
        return out;
    }

    private static FullHttpResponse full(String body) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.length());
        return response;
    }

    /** Everything written out so far, as text. */
    private static String readOutbound(EmbeddedChannel channel) {
        StringBuilder text = new StringBuilder();
        for (Object out; (out = channel.readOutbound()) != null; ) {
            assertInstanceOf(ByteBuf.class, out, "only bytes reach the socket");
            text.append(((ByteBuf) out).toString(StandardCharsets.UTF_8));
            ((ByteBuf) out).release();
        }
        return text.toString();
    }
}
