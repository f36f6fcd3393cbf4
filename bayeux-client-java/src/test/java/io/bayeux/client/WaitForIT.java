package io.bayeux.client;

import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link BayeuxClient#waitFor} wakes up when the state changes, not when its timeout ends. */
class WaitForIT {
    private NettyBayeuxServer server;

    @BeforeEach
    void start() {
        server = NettyBayeuxServer.builder().port(0).build().start();
    }

    @AfterEach
    void stop() {
        server.stop();
    }

    @Test
    void waitForReturnsAsSoonAsTheStateIsReached() {
        try (BayeuxClient client = new BayeuxClient(server.uri().toString())) {
            client.handshake();
            // A waiter that was not woken would sleep the whole minute.
            assertTimeoutPreemptively(Duration.ofSeconds(10),
                    () -> assertTrue(client.waitFor(Duration.ofMinutes(1), BayeuxClient.State.CONNECTED)));
            client.disconnect();
            assertTimeoutPreemptively(Duration.ofSeconds(10),
                    () -> assertTrue(client.waitFor(Duration.ofMinutes(1), BayeuxClient.State.DISCONNECTED)));
        }
    }
}
