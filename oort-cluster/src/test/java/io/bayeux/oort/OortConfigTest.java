package io.bayeux.oort;

import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A bad setting fails at start (or at once, in the builder), with a message that names it and its value. */
class OortConfigTest {
    private static final String PEER = "http://127.0.0.1:8080/cometd";

    private final BayeuxServerImpl bayeux = new BayeuxServerImpl();

    @AfterEach
    void stop() {
        bayeux.stop();
    }

    @Test
    void aNodeWithPeersAndNoSecretFailsToStartSayingWhy() {
        OortConfig config = OortConfig.builder().peer(PEER).build();
        // Checked before the server is built: no port is bound.
        assertFailsNaming(() -> OortNode.start(NettyBayeuxServer.builder().host("127.0.0.1").port(0), config), "secret", PEER);
        assertFailsNaming(() -> config.start(bayeux, "http://127.0.0.1:8081/cometd"), "secret", "no node can link");
    }

    @Test
    void aMalformedURLFailsAtStart() {
        OortConfig config = OortConfig.builder().url("http://[::1/cometd").secret("s").build();
        assertFailsNaming(() -> config.start(bayeux), "url", "http://[::1/cometd");
        assertFailsNaming(() -> OortNode.start(NettyBayeuxServer.builder().host("127.0.0.1").port(0), config), "url", "http://[::1/cometd");
    }

    @Test
    void aURLThatIsNotHttpOrWebSocketFailsAtStart() {
        OortConfig config = OortConfig.builder().url("ftp://127.0.0.1/cometd").build();
        assertFailsNaming(() -> config.start(bayeux), "url", "ftp://127.0.0.1/cometd");
    }

    @Test
    void aPeerWithoutSchemeFailsAtStart() {
        OortConfig config = OortConfig.builder().secret("s").peer(PEER).peer("127.0.0.1:8082").build();
        assertFailsNaming(() -> config.start(bayeux, "http://127.0.0.1:8081/cometd"), "peer", "127.0.0.1:8082");
    }

    @Test
    void aPeerWithoutHostFailsAtStart() {
        OortConfig config = OortConfig.builder().secret("s").peer("http:///cometd").build();
        assertFailsNaming(config::validate, "peer", "http:///cometd");
    }

    @Test
    void aMetaOrServiceChannelFailsAtStart() {
        assertFailsNaming(OortConfig.builder().channel("/meta/connect").build()::validate, "channel", "/meta/connect");
        assertFailsNaming(OortConfig.builder().channel("/service/chat").build()::validate, "channel", "/service/chat");
        assertFailsNaming(OortConfig.builder().channel("chat").build()::validate, "channel", "chat");
    }

    @Test
    void startWithoutAURLSaysTheURLIsMissing() {
        assertFailsNaming(() -> OortConfig.builder().build().start(bayeux), "url", "not set");
    }

    @Test
    void badTimeoutsFailInTheBuilder() {
        assertFailsNaming(() -> OortConfig.builder().failureTimeout(Duration.ofSeconds(-1)), "failureTimeout", "PT-1S");
        assertFailsNaming(() -> OortConfig.builder().failureTimeout(Duration.ofMillis(100)), "failureTimeout", "PT0.1S");
        assertFailsNaming(() -> OortConfig.builder().maxBackoff(Duration.ofSeconds(-2)), "maxBackoff", "PT-2S");
        assertFailsNaming(() -> OortConfig.builder().maxBackoff(Duration.ZERO), "maxBackoff", "PT0S");
    }

    @Test
    void anEmptySecretFailsInTheBuilder() {
        assertFailsNaming(() -> OortConfig.builder().secret(""), "secret");
    }

    @Test
    void aNodeAloneNeedsNoSecret() {
        OortConfig config = OortConfig.builder().url("ws://127.0.0.1:8081/cometd").channel("/chat/**").build();
        assertSame(config, config.validate());
    }

    private static void assertFailsNaming(Executable start, String... parts) {
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, start);
        for (String part : parts) {
            assertTrue(x.getMessage().contains(part), () -> "'" + x.getMessage() + "' does not say '" + part + "'");
        }
    }
}
