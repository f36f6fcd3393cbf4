package io.bayeux.transport.internal.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The request timeout on a keep-alive connection, with the event loop's time in the test's hands:
 * each request is timed from its own first bytes, whatever timer earlier requests left behind.
 */
class RequestTimeoutHandlerTest {
    private static final long TIMEOUT_MILLIS = 1_000;
    private static final String REQUEST = "POST /cometd HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n[]";

    private EmbeddedChannel channel;

    @BeforeEach
    void open() {
        RequestTimeoutHandler timeout = new RequestTimeoutHandler(TIMEOUT_MILLIS);
        channel = new EmbeddedChannel();
        channel.freezeTime();
        channel.pipeline().addLast(RequestTimeoutHandler.STARTER_NAME, timeout.starter());
        channel.pipeline().addLast(new HttpResponseEncoder(), new HttpRequestDecoder());
        channel.pipeline().addLast(RequestTimeoutHandler.NAME, timeout);
    }

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    @Test
    void aRequestThatStopsHalfWayIsAnswered408AndClosedAfterTheTimeout() {
        send("POST /cometd HTTP/1.1\r\nHost: x\r\nContent-Le");
        advance(TIMEOUT_MILLIS - 1);
        assertNull(readResponse(), "no 408 before the timeout");
        assertTrue(channel.isOpen());
        advance(1);
        assertTrue(readResponse().startsWith("HTTP/1.1 408 "));
        assertFalse(channel.isOpen(), "closed after the 408");
    }

    @Test
    void completeRequestsAreNeverTimedOut() {
        for (int i = 0; i < 50; i++) {
            send(REQUEST);
            advance(TIMEOUT_MILLIS / 3);
        }
        advance(10 * TIMEOUT_MILLIS);
        assertNull(readResponse());
        assertTrue(channel.isOpen());
    }

    @Test
    void aRequestThatStartsLateIsTimedFromItsOwnStartNotFromTheEarlierRequests() {
        send(REQUEST);
        advance(TIMEOUT_MILLIS * 8 / 10);
        // Starts while the first request's timer still runs, and stops half-way.
        send("POST /cometd HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n[{");
        advance(TIMEOUT_MILLIS / 2); // 1.3 T: the first request's timer fired at T
        assertNull(readResponse(), "the first request's timer expiring does not time out the second request");
        assertTrue(channel.isOpen());
        advance(TIMEOUT_MILLIS / 2 - 1); // 1.8 T less 1 ms: the second request started at 0.8 T
        assertNull(readResponse(), "one millisecond before the second request's own timeout");
        advance(1);
        assertTrue(readResponse().startsWith("HTTP/1.1 408 "));
        assertFalse(channel.isOpen());
    }

    @Test
    void aRequestAfterAQuietSpellIsStillTimed() {
        send(REQUEST);
        advance(5 * TIMEOUT_MILLIS);
        send("POST /cometd HTTP/1.1\r\nHo");
        advance(TIMEOUT_MILLIS);
        assertTrue(readResponse().startsWith("HTTP/1.1 408 "));
    }

    @Test
    void aPipelinedRequestThatStopsHalfWayIsTimedFromWhenItsBytesCame() {
        send(REQUEST + "POST /cometd HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n[{");
        advance(TIMEOUT_MILLIS - 1);
        assertNull(readResponse());
        advance(1);
        assertTrue(readResponse().startsWith("HTTP/1.1 408 "));
    }

    private void send(String bytes) {
        channel.writeInbound(Unpooled.copiedBuffer(bytes, StandardCharsets.US_ASCII));
        // The decoded requests reach the end of the pipeline: release them.
        Object message;
        while ((message = channel.readInbound()) != null) {
            ReferenceCountUtil.release(message);
        }
    }

    private void advance(long millis) {
        channel.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        channel.runPendingTasks();
        channel.runScheduledPendingTasks();
    }

    /** The bytes written so far, or null when nothing was written. */
    private String readResponse() {
        StringBuilder out = new StringBuilder();
        Object message;
        while ((message = channel.readOutbound()) != null) {
            if (message instanceof ByteBuf bytes) {
                out.append(bytes.toString(StandardCharsets.US_ASCII));
            }
            ReferenceCountUtil.release(message);
        }
        return out.isEmpty() ? null : out.toString();
    }
}
