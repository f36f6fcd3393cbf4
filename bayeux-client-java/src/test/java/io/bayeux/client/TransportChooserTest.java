package io.bayeux.client;

import io.bayeux.client.transport.ClientTransport;
import io.bayeux.client.transport.LongPollingTransport;
import io.bayeux.client.transport.WebSocketTransport;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link TransportChooser}: the order of preference, negotiation, and falling back until the next session. */
class TransportChooserTest {
    private final ClientConfig config = ClientConfig.builder().build();
    private final ClientTransport webSocket = new WebSocketTransport(config);
    private final ClientTransport longPolling = new LongPollingTransport(config);
    private final TransportChooser chooser = new TransportChooser(List.of(webSocket, longPolling));

    @Test
    void noTransportIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new TransportChooser(List.of()));
    }

    @Test
    void aNewSessionStartsFromTheFirstTransport() {
        assertNull(chooser.current());
        assertSame(webSocket, chooser.restart());
        assertEquals(List.of("websocket", "long-polling"), chooser.names());
    }

    @Test
    void negotiationPicksTheFirstTransportTheServerSupports() {
        chooser.restart();
        assertSame(longPolling, chooser.negotiate(List.of("long-polling", "callback-polling")));
    }

    @Test
    void negotiationKeepsTheCurrentTransportWhenTheServerSupportsNone() {
        chooser.restart();
        assertSame(webSocket, chooser.negotiate(List.of("callback-polling")));
        assertSame(webSocket, chooser.negotiate(null));
    }

    @Test
    void anUnusableTransportIsExcludedUntilTheNextSession() {
        chooser.restart();
        assertTrue(chooser.fallBackFrom(webSocket));
        assertSame(longPolling, chooser.current());
        assertSame(longPolling, chooser.negotiate(List.of("websocket", "long-polling")), "an excluded transport is not negotiated");
        assertSame(webSocket, chooser.restart());
    }

    @Test
    void theLastTransportLeftAndAStaleOneAreNotExcluded() {
        chooser.restart();
        assertFalse(chooser.fallBackFrom(longPolling), "not the current one");
        assertTrue(chooser.fallBackFrom(webSocket));
        assertFalse(chooser.fallBackFrom(webSocket), "excluded already");
        assertFalse(chooser.fallBackFrom(longPolling), "the last one left");
        assertSame(longPolling, chooser.current());
    }
}
