package io.bayeux.oort;

import io.bayeux.oort.seti.Seti;
import io.bayeux.server.internal.BayeuxServerImpl;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OortTest {
    @Test
    void theSecretIsSentAsBase64OfSha512OfItsUtf8Bytes() {
        // Computed independently (Python's hashlib and base64).
        assertEquals("oEMGAZ++NNVVtXqk7aZy59nyknw+nvtjMrtlgEbrM78DKoj8fZ3BUMGTd7X9eVQPBQgyUqI4K7fg226MclNYuA==", Oort.hash("s\u00e9cret"));
    }

    @Test
    void setiIdsReplaceEveryRunOfNonAlphanumericsWithOneUnderscore() {
        assertEquals("http_127_0_0_1_8080_cometd", Seti.setiId("http://127.0.0.1:8080/cometd"));
        assertEquals("https_example_com_a_b_", Seti.setiId("https://example.com/a-b/"));
        assertEquals("/seti/http_10_0_0_1_80_x", Seti.setiChannel("http://10.0.0.1:80/x"));
    }

    @Test
    void theCloudsOwnChannelsAreInternal() {
        assertTrue(Oort.isInternal("/oort/cloud"));
        assertTrue(Oort.isInternal("/seti/all"));
        assertTrue(Oort.isInternal("/service/oort"));
        assertTrue(Oort.isInternal("/service/oort/x"));
        assertFalse(Oort.isInternal("/oortish"));
        assertFalse(Oort.isInternal("/service/oortx"));
        assertFalse(Oort.isInternal("/chat/oort"));
    }

    @Test
    void theOortExtIsReadFromAMessage() {
        io.bayeux.common.HashMapMessage message = new io.bayeux.common.HashMapMessage();
        assertNull(Oort.oortExt(message));
        message.put("ext", Map.of(Oort.EXT_OORT_FIELD, Map.of("oortId", "x")));
        assertEquals(Map.of("oortId", "x"), Oort.oortExt(message));
    }

    @Test
    void badSettingsFailFast() {
        BayeuxServerImpl server = new BayeuxServerImpl();
        try {
            assertThrows(IllegalArgumentException.class, () -> new Oort(server, "not a url"));
            Oort oort = new Oort(server, "http://127.0.0.1:1/cometd");
            assertThrows(IllegalArgumentException.class, () -> oort.setSecret(""));
            assertThrows(IllegalArgumentException.class, () -> oort.setFailureTimeout(Duration.ofMillis(10)));
            assertThrows(IllegalArgumentException.class, () -> oort.observeChannel("/meta/connect"));
            assertThrows(IllegalArgumentException.class, () -> oort.observeChannel("/service/x"));
            assertThrows(IllegalStateException.class, () -> oort.observeComet("http://127.0.0.1:2/cometd"));
        } finally {
            server.stop();
        }
    }

    @Test
    void aConfigCarriesItsSettings() {
        OortConfig config = OortConfig.builder().url("http://127.0.0.1:8081/cometd").secret("s")
                .peer("http://127.0.0.1:8080/cometd").channel("/chat/**").failureTimeout(Duration.ofSeconds(4)).build();
        assertEquals(List.of("http://127.0.0.1:8080/cometd"), config.peers());
        assertEquals(List.of("/chat/**"), config.channels());
        assertEquals(Duration.ofSeconds(4), config.failureTimeout());
        assertThrows(IllegalArgumentException.class, () -> OortConfig.builder().secret(""));
    }
}
