package io.bayeux.transport;

import org.junit.jupiter.api.Test;

import java.time.Duration;

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

    @Test
    void contextsPerConnectionAreOffByDefaultAndTurnOnKeepingTheirSettings() {
        assertEquals(WebSocketCompression.Context.OFF, WebSocketCompression.DEFAULT.context());
        assertEquals(new WebSocketCompression.Context(false, 15, 11, Duration.ofSeconds(1)), WebSocketCompression.Context.OFF);
        WebSocketCompression.Context tuned = new WebSocketCompression.Context(false, 13, 14, Duration.ofMillis(500));
        WebSocketCompression on = NettyBayeuxServer.builder().websocketCompression(WebSocketCompression.DEFAULT.withContext(tuned))
                .websocketCompressionContext(true).settings().websocketCompression();
        assertEquals(tuned.withEnabled(true), on.context());
        assertEquals(WebSocketCompression.DEFAULT.withContext(tuned.withEnabled(true)), on);
    }

    @Test
    void badContextValuesAreRefusedNamingTheSetting() {
        Duration second = Duration.ofSeconds(1);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new WebSocketCompression.Context(true, 8, 12, second))
                .getMessage().contains("windowBits"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new WebSocketCompression.Context(true, 11, 8, second))
                .getMessage().contains("dictionaryBits"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new WebSocketCompression.Context(true, 11, 17, second))
                .getMessage().contains("dictionaryBits"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new WebSocketCompression.Context(true, 11, 12, Duration.ZERO))
                .getMessage().contains("releaseAfter"));
        assertThrows(NullPointerException.class, () -> WebSocketCompression.DEFAULT.withContext(null));
    }
}
