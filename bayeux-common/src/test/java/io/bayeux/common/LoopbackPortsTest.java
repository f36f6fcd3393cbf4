package io.bayeux.common;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LoopbackPortsTest {
    @Test
    void aPortIsBelowTheEphemeralRangeAndCanBeBound() throws Exception {
        int high = LoopbackPorts.ephemeralLow();
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 20; i++) {
            int port = LoopbackPorts.unused();
            assertTrue(port >= LoopbackPorts.LOWEST && port < high, port + " outside [" + LoopbackPorts.LOWEST + ", " + high + ")");
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                assertTrue(socket.isBound());
            }
            seen.add(port);
        }
        assertTrue(seen.size() > 1, "chosen at random: " + seen);
    }

    @Test
    void aPortBoundByAnotherSocketIsNotGiven() throws Exception {
        int high = LoopbackPorts.ephemeralLow();
        // Hold a band of ports (about 1 % of those chosen from): 200 tries pick some of them, and none may come back.
        Set<Integer> held = new HashSet<>();
        java.util.List<ServerSocket> sockets = new java.util.ArrayList<>();
        try {
            for (int port = LoopbackPorts.LOWEST; port < LoopbackPorts.LOWEST + 200 && port < high; port++) {
                try {
                    sockets.add(new ServerSocket(port, 1, InetAddress.getLoopbackAddress()));
                    held.add(port);
                } catch (java.io.IOException taken) {
                    held.add(port); // taken by someone else: not free either
                }
            }
            for (int i = 0; i < 200; i++) {
                int port = LoopbackPorts.unused();
                assertFalse(held.contains(port), "a held port came back: " + port);
            }
        } finally {
            for (ServerSocket socket : sockets) {
                socket.close();
            }
        }
    }
}
