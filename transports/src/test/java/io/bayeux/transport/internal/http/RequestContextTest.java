package io.bayeux.transport.internal.http;

import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class RequestContextTest {
    /** What browsers and clients put in an upgrade, the names packed as one character among them. */
    private static final List<String> NAMES = List.of("Host", "Upgrade", "Connection", "Origin", "Sec-WebSocket-Version",
            "Sec-WebSocket-Extensions", "Sec-WebSocket-Protocol", "User-Agent", "Cookie", "Accept-Encoding", "Accept-Language",
            "Cache-Control", "Pragma", "Authorization", "Referer", "X-Forwarded-For", "X-Forwarded-Proto", "X-Custom", "A");

    @Test
    @Timeout(value = 10, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a packing that breaks its own parsing loops forever
    void anUpgradesHeadersAreKeptButTheHandshakesNonce() {
        DefaultFullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/cometd");
        for (String name : NAMES) {
            request.headers().add(name, "value of " + name);
        }
        request.headers().add("x-custom", "second value");
        request.headers().add("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==");

        RequestContext context = RequestContext.ofUpgrade(new EmbeddedChannel(), request, "/cometd", "websocket");

        for (String name : NAMES) {
            assertEquals("value of " + name, context.getHeader(name), name);
            assertEquals("value of " + name, context.getHeader(name.toUpperCase(Locale.ROOT)), name + " in capitals");
        }
        assertEquals(List.of("value of X-Custom", "second value"), context.getHeaderValues("X-CUSTOM"));
        assertEquals(List.of("value of Accept-Encoding"), context.getHeaderValues("accept-encoding"));
        assertNull(context.getHeader("Sec-WebSocket-Key"), "the nonce is of use to the handshake only");
        assertNull(context.getHeader("X-Absent"));
        assertNull(context.getHeader("B"));
        assertEquals(List.of(), context.getHeaderValues("Accept"));
    }
}
