package io.bayeux.transport;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WebSocketCompressionTest {
    @Test
    void theServerCompressesByDefaultWithZlibsDefaults() {
        WebSocketCompression compression = NettyBayeuxServer.builder().settings().websocketCompression();
        assertEquals(WebSocketCompression.DEFAULT, compression);
        assertTrue(compression.enabled());
        assertTrue(compression.usesJdkZlib());
        assertEquals(new WebSocketCompression(true, 1, 15, 8, 128), compression);
    }

    @Test
    void turningItOffKeepsTheOtherSettings() {
        WebSocketCompression tuned = new WebSocketCompression(true, 6, 12, 5, 512);
        WebSocketCompression off = NettyBayeuxServer.builder().websocketCompression(tuned).websocketCompression(false)
                .settings().websocketCompression();
        assertEquals(tuned.withEnabled(false), off);
        assertFalse(off.enabled());
        assertFalse(tuned.usesJdkZlib());
    }

    @Test
    void badValuesAreRefusedNamingTheSetting() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new WebSocketCompression(true, 0, 15, 8, 0)).getMessage().contains("level"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new WebSocketCompression(true, 1, 8, 8, 0)).getMessage().contains("windowBits"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new WebSocketCompression(true, 1, 15, 10, 0)).getMessage().contains("memLevel"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new WebSocketCompression(true, 1, 15, 8, -1)).getMessage().contains("minBytes"));
        assertThrows(NullPointerException.class, () -> NettyBayeuxServer.builder().websocketCompression(null));
    }
}
