package io.bayeux.transport.internal.websocket;

import io.bayeux.transport.WebSocketCompression;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class PerMessageDeflateTest {
    private static final String ACCEPTED = "permessage-deflate; server_no_context_takeover; client_no_context_takeover";
    private static final WebSocketCompression ON = WebSocketCompression.DEFAULT;

    @Test
    void aPlainOfferIsAnsweredWithNoContextTakeoverBothWays() {
        assertEquals(ACCEPTED, PerMessageDeflate.accept(List.of("permessage-deflate"), ON));
    }

    @Test
    void noOfferOrAnotherExtensionGetsNothing() {
        assertNull(PerMessageDeflate.accept(List.of(), ON));
        assertNull(PerMessageDeflate.accept(List.of("x-webkit-deflate-frame"), ON));
    }

    @Test
    void anOfferIsDeclinedWhenCompressionIsOff() {
        assertNull(PerMessageDeflate.accept(List.of("permessage-deflate"), WebSocketCompression.OFF));
    }

    @Test
    void clientMaxWindowBitsWithoutValueIsAnsweredWithTheServersWindow() {
        assertEquals(ACCEPTED + "; client_max_window_bits=15",
                PerMessageDeflate.accept(List.of("permessage-deflate; client_max_window_bits"), ON));
        WebSocketCompression small = new WebSocketCompression(true, 1, 12, 8, 0);
        assertEquals(ACCEPTED + "; client_max_window_bits=12",
                PerMessageDeflate.accept(List.of("permessage-deflate; client_max_window_bits"), small));
    }

    @Test
    void clientMaxWindowBitsWithAValueIsNeverRaised() {
        assertEquals(ACCEPTED + "; client_max_window_bits=10",
                PerMessageDeflate.accept(List.of("permessage-deflate; client_max_window_bits=10"), ON));
        assertNull(PerMessageDeflate.accept(List.of("permessage-deflate; client_max_window_bits=16"), ON));
    }

    @Test
    void serverMaxWindowBitsBelowTheServersWindowDeclinesThatOfferOnly() {
        assertNull(PerMessageDeflate.accept(List.of("permessage-deflate; server_max_window_bits=10"), ON));
        assertEquals(ACCEPTED, PerMessageDeflate.accept(
                List.of("permessage-deflate; server_max_window_bits=10, permessage-deflate"), ON));
        assertEquals(ACCEPTED + "; server_max_window_bits=15",
                PerMessageDeflate.accept(List.of("permessage-deflate; server_max_window_bits=15"), ON));
        WebSocketCompression small = new WebSocketCompression(true, 1, 10, 8, 0);
        assertEquals(ACCEPTED + "; server_max_window_bits=10",
                PerMessageDeflate.accept(List.of("permessage-deflate; server_max_window_bits=12"), small));
    }

    @Test
    void offersWithUnknownOrMalformedParametersAreDeclined() {
        assertNull(PerMessageDeflate.accept(List.of("permessage-deflate; mystery"), ON));
        assertNull(PerMessageDeflate.accept(List.of("permessage-deflate; client_no_context_takeover=1"), ON));
        assertNull(PerMessageDeflate.accept(List.of("permessage-deflate; server_max_window_bits"), ON));
        assertNull(PerMessageDeflate.accept(List.of("permessage-deflate; server_max_window_bits=x"), ON));
    }

    @Test
    void noContextTakeoverOffersAreAccepted() {
        assertEquals(ACCEPTED, PerMessageDeflate.accept(
                List.of("permessage-deflate; client_no_context_takeover; server_no_context_takeover"), ON));
    }

    @Test
    void withContextOnAnOfferThatAllowsItIsAnsweredWithoutServerNoContextTakeover() {
        WebSocketCompression context = ON.withContext(true);
        PerMessageDeflate.Answer answer = PerMessageDeflate.negotiate(List.of("permessage-deflate; client_max_window_bits"), context);
        assertEquals(new PerMessageDeflate.Answer("permessage-deflate; client_no_context_takeover; client_max_window_bits=15", true, 15), answer);
        assertEquals(new PerMessageDeflate.Answer(ACCEPTED, false, ON.windowBits()),
                PerMessageDeflate.negotiate(List.of("permessage-deflate; server_no_context_takeover"), context));
        assertEquals(new PerMessageDeflate.Answer(ACCEPTED, false, ON.windowBits()), PerMessageDeflate.negotiate(List.of("permessage-deflate"), ON));
    }

    @Test
    void withContextOnTheServerWindowAskedForIsTakenUpToTheContexts() {
        WebSocketCompression context = ON.withContext(true);
        assertEquals(new PerMessageDeflate.Answer("permessage-deflate; client_no_context_takeover; server_max_window_bits=13", true, 13),
                PerMessageDeflate.negotiate(List.of("permessage-deflate; server_max_window_bits=13"), context));
        assertEquals(new PerMessageDeflate.Answer("permessage-deflate; client_no_context_takeover; server_max_window_bits=8", true, 8),
                PerMessageDeflate.negotiate(List.of("permessage-deflate; server_max_window_bits=8"), context));
        WebSocketCompression smaller = ON.withContext(new WebSocketCompression.Context(true, 11, 12, java.time.Duration.ofSeconds(1)));
        assertEquals(new PerMessageDeflate.Answer("permessage-deflate; client_no_context_takeover; server_max_window_bits=11", true, 11),
                PerMessageDeflate.negotiate(List.of("permessage-deflate; server_max_window_bits=13"), smaller));
        assertEquals(new PerMessageDeflate.Answer("permessage-deflate; client_no_context_takeover", true, 11),
                PerMessageDeflate.negotiate(List.of("permessage-deflate"), smaller));
    }
}
