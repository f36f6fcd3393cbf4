package io.bayeux.oort;

import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static io.bayeux.oort.OortTesting.SECRET;
import static io.bayeux.oort.OortTesting.WAIT;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Nodes and Oorts started and closed by try-with-resources, over real sockets. */
class OortNodeIT {
    @Test
    void nodesInTryWithResourcesJoinAndTheClosedOneLeaves() throws Exception {
        OortConfig.Builder config = OortConfig.builder().secret(SECRET).failureTimeout(Duration.ofSeconds(6));
        try (OortNode a = OortNode.start(server(), config.build())) {
            CountDownLatch joined = new CountDownLatch(1);
            CountDownLatch left = new CountDownLatch(1);
            a.oort().addCometListener(new CometListener() {
                @Override
                public void cometJoined(Event event) {
                    joined.countDown();
                }

                @Override
                public void cometLeft(Event event) {
                    left.countDown();
                }
            });
            OortNode b;
            int port;
            try (OortNode started = OortNode.start(server(), config.peer(a.oort().getURL()).build())) {
                b = started;
                port = b.server().port();
                assertTrue(joined.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "b never joined a");
                assertTrue(b.oort().isRunning());
            }
            // Closing b stopped its Seti and Oort before its server: a saw it leave.
            assertTrue(left.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "b never left a");
            assertFalse(b.oort().isRunning());
            assertRefused(port);
            assertDoesNotThrow(b::close, "a second close");
        }
    }

    @Test
    void anOortInTryWithResourcesStopsWhenClosed() throws Exception {
        NettyBayeuxServer server = server().build().start();
        try {
            Oort closed;
            try (Oort oort = OortConfig.builder().secret(SECRET).channel("/chat/**").build().start(server.bayeux(), server.uri().toString())) {
                closed = oort;
                assertTrue(oort.isRunning());
                assertEquals(java.util.Set.of("/chat/**"), oort.getObservedChannels());
            }
            assertFalse(closed.isRunning());
            assertDoesNotThrow(closed::close, "a second close");
            // A stopped Oort has no link manager to ask.
            assertThrows(IllegalStateException.class, () -> closed.observeComet("http://127.0.0.1:1/cometd"));
        } finally {
            server.stop();
        }
    }

    @Test
    void aBadConfigBindsNoPort() throws IOException {
        int port;
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        OortConfig config = OortConfig.builder().peer("http://127.0.0.1:1/cometd").build();
        assertThrows(IllegalArgumentException.class, () -> OortNode.start(NettyBayeuxServer.builder().host("127.0.0.1").port(port), config));
        assertRefused(port);
    }

    private static NettyBayeuxServer.Builder server() {
        return NettyBayeuxServer.builder().host("127.0.0.1").port(0);
    }

    private static void assertRefused(int port) {
        assertThrows(IOException.class, () -> {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            }
        }, "port " + port + " still open");
    }
}
