package io.bayeux.client;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClientConfigTest {
    @Test
    void extraHeadersAreKeptAndASecondValueReplacesTheFirst() {
        ClientConfig config = ClientConfig.builder().header("Authorization", "Bearer a").header("X-App", "chat")
                .header("Authorization", "Bearer b").build();

        assertEquals(Map.of("Authorization", "Bearer b", "X-App", "chat"), config.headers());
    }

    @Test
    void noExtraHeadersByDefault() {
        assertTrue(ClientConfig.builder().build().headers().isEmpty());
    }

    @Test
    void headersTheTransportsManageAreRefused() {
        for (String name : new String[]{"Host", "cookie", "Content-Length", "Upgrade", "Sec-WebSocket-Key", "Bad Name", ""}) {
            IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> ClientConfig.builder().header(name, "v"));
            assertTrue(x.getMessage().contains(name), x.getMessage());
        }
    }

    @Test
    void aValueThatWouldSplitTheRequestIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> ClientConfig.builder().header("X-Evil", "a\r\nHost: other"));
        assertThrows(IllegalArgumentException.class, () -> ClientConfig.builder().header("X-None", null));
    }

    @Test
    void theUpgradeTimeoutDefaultsToFiveSecondsAndIsSeparateFromTheConnectTimeout() {
        ClientConfig config = ClientConfig.builder().build();
        assertEquals(Duration.ofSeconds(5), config.upgradeTimeout());
        assertEquals(ClientConfig.DEFAULT_UPGRADE_TIMEOUT, config.upgradeTimeout());
        assertEquals(ClientConfig.DEFAULT_CONNECT_TIMEOUT, config.connectTimeout());

        ClientConfig custom = ClientConfig.builder().upgradeTimeout(Duration.ofMillis(1500)).build();
        assertEquals(Duration.ofMillis(1500), custom.upgradeTimeout());
        assertEquals(ClientConfig.DEFAULT_CONNECT_TIMEOUT, custom.connectTimeout());
    }

    @Test
    void anUpgradeTimeoutThatIsNotPositiveIsRefusedNamingTheValue() {
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> ClientConfig.builder().upgradeTimeout(Duration.ZERO));
        assertTrue(zero.getMessage().contains("upgradeTimeout") && zero.getMessage().contains("PT0S"), zero.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ClientConfig.builder().upgradeTimeout(Duration.ofSeconds(-1)));
        assertThrows(IllegalArgumentException.class, () -> ClientConfig.builder().upgradeTimeout(null));
    }
}
