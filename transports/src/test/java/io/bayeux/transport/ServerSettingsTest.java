package io.bayeux.transport;

import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.QueueOverflow;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The frozen settings: the defaults their javadoc lists, and a value that nothing changes once made. */
class ServerSettingsTest {
    @Test
    void aBuildersSettingsAreTheDocumentedDefaults() {
        ServerSettings settings = NettyBayeuxServer.builder().settings();
        assertEquals("127.0.0.1", settings.host());
        assertEquals(8080, settings.port());
        assertEquals(ServerSettings.DEFAULT_PATH, settings.path());
        assertEquals(Set.of("*"), settings.allowedOrigins());
        assertEquals(ServerSettings.DEFAULT_MAX_MESSAGE_SIZE, settings.maxMessageSize());
        assertEquals(ServerSettings.DEFAULT_REQUEST_TIMEOUT, settings.requestTimeout());
        assertEquals(ServerSettings.DEFAULT_IDLE_TIMEOUT, settings.idleTimeout());
        assertEquals(ServerSettings.DEFAULT_STALL_TIME, settings.stallTime());
        assertNull(settings.tls());
        assertEquals(List.of(), settings.staticRoots());
        assertFalse(settings.jsonp());
        assertTrue(settings.websocket());
        assertTrue(settings.servesWebSocket());
        assertFalse(settings.handshakePerConnection());
        assertEquals(WebSocketCompression.DEFAULT, settings.websocketCompression());
        assertEquals(ServerSettings.DEFAULT_GZIP_LEVEL, settings.gzipLevel());
        assertEquals(ServerSettings.DEFAULT_GZIP_MIN_BYTES, settings.gzipMinBytes());
        assertEquals("BAYEUX_BROWSER", settings.browserCookieName());
        assertEquals(SameSite.LAX, settings.browserCookieSameSite());
        assertEquals(ServerSettings.defaultIoThreads(), settings.ioThreads());
        assertEquals(ServerSettings.defaultExecutorThreads(), settings.executorThreads());
        assertEquals(ServerSettings.DEFAULT_MAX_QUEUE, settings.bayeux().maxQueue());
        assertEquals(QueueOverflow.DISCONNECT, settings.bayeux().queueOverflow());
        assertEquals(BayeuxServerConfig.DEFAULT_ALLOWED_TRANSPORTS, settings.bayeux().allowedTransports());
        assertEquals(BayeuxServerConfig.DEFAULT_TIMEOUT, settings.bayeux().timeout());
    }

    @Test
    void theTransportsOfferedFollowWebSocketAndJsonp() {
        assertEquals(List.of("long-polling", "callback-polling"),
                NettyBayeuxServer.builder().websocket(false).jsonp(true).settings().bayeux().allowedTransports());
        ServerSettings refused = NettyBayeuxServer.builder()
                .bayeuxConfig(BayeuxServerConfig.builder().allowedTransports(List.of("long-polling")).build()).settings();
        assertTrue(refused.websocket());
        assertFalse(refused.servesWebSocket(), "websocket is not among the allowed transports");
    }

    @Test
    void aSettingsValueCopiesWhatItIsGivenAndChecksItsDurations() {
        List<String> roots = new ArrayList<>(List.of("classpath:/static"));
        ServerSettings settings = withRootsAndIdleTimeout(roots, Duration.ofSeconds(1));
        roots.add("/tmp");
        assertEquals(List.of("classpath:/static"), settings.staticRoots());
        assertThrows(UnsupportedOperationException.class, () -> settings.staticRoots().add("/tmp"));
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> withRootsAndIdleTimeout(roots, Duration.ZERO));
        assertTrue(zero.getMessage().contains("idleTimeout"), zero.getMessage());
    }

    private static ServerSettings withRootsAndIdleTimeout(List<String> roots, Duration idleTimeout) {
        ServerSettings d = NettyBayeuxServer.builder().settings();
        return new ServerSettings(d.host(), d.port(), d.path(), d.allowedOrigins(), d.maxMessageSize(), d.requestTimeout(), idleTimeout,
                d.stallTime(), d.tls(), roots, d.jsonp(), d.websocket(), d.handshakePerConnection(), d.websocketCompression(),
                d.gzipLevel(), d.gzipMinBytes(), d.browserCookieName(), d.browserCookieSameSite(), d.ioThreads(), d.executorThreads(),
                d.bayeux());
    }
}
