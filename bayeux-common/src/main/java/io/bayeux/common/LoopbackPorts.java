package io.bayeux.common;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Loopback ports for a server that another process is about to start: the test harnesses'
 * nodes, the load tool's servers. A port found by binding port 0 is one of the kernel's
 * ephemeral ports, which any outgoing connection may take as its own before the server binds
 * it; so this one is chosen below the ephemeral range (Linux's
 * {@code /proc/sys/net/ipv4/ip_local_port_range}, 32768 by default), where only an explicit
 * bind can take it, and checked free now.
 */
public final class LoopbackPorts {
    /** The lowest port chosen: above the well-known and most registered services' ports. */
    static final int LOWEST = 10_000;
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int DEFAULT_EPHEMERAL_LOW = 32_768;
    private static final int ATTEMPTS = 100;

    private LoopbackPorts() {
    }

    /**
     * A port free on the loopback interface now and below the ephemeral range; when none is
     * found (a range that starts too low, or every try taken), one the kernel picks.
     */
    public static int unused() throws IOException {
        int high = ephemeralLow();
        if (high - LOWEST >= 1_000) {
            for (int i = 0; i < ATTEMPTS; i++) {
                int port = ThreadLocalRandom.current().nextInt(LOWEST, high);
                if (isFree(port)) {
                    return port;
                }
            }
        }
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** The first ephemeral port (exclusive upper bound of the ports chosen here). */
    static int ephemeralLow() {
        // Read by line: a whole-file read of a /proc file can stop short (its size shows as 0).
        try (BufferedReader in = Files.newBufferedReader(EPHEMERAL_RANGE, StandardCharsets.US_ASCII)) {
            String line = in.readLine();
            return Integer.parseInt(line.strip().split("\\s+")[0]);
        } catch (IOException | RuntimeException x) {
            // Not Linux, or not readable: the range most systems use.
            return DEFAULT_EPHEMERAL_LOW;
        }
    }

    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException x) {
            return false;
        }
    }
}
