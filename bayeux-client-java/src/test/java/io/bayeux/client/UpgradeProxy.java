package io.bayeux.client;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP proxy for the tests, in front of a server, that treats WebSocket upgrades as a
 * misbehaving proxy of the real world would, per its {@link Mode}; every other HTTP request
 * (long-polling POSTs, on keep-alive connections) is relayed byte for byte. Only the first
 * request of each connection is looked at: an upgrade is always the first request of its own
 * connection. One thread per direction per connection; {@link #close()} closes everything.
 */
final class UpgradeProxy implements AutoCloseable {
    /** What happens to WebSocket upgrades. */
    enum Mode {
        /** Relayed like everything else. */
        FORWARD,
        /** Read and never answered; the connection stays open. */
        SWALLOW,
        /** The connection is closed as soon as the upgrade request has arrived. */
        CUT,
        /** Relayed, and the connection is closed as soon as the server's answer has passed. */
        CUT_AFTER_UPGRADE
    }

    private static final int MAX_HEAD = 64 * 1024;

    private final ServerSocket listener;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile int targetPort;
    private volatile Mode mode;
    /** How many upgrade requests arrived. */
    final AtomicInteger upgrades = new AtomicInteger();

    UpgradeProxy(int targetPort, Mode mode) throws IOException {
        this.targetPort = targetPort;
        this.mode = mode;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = Thread.ofPlatform().daemon().name("proxy-accept").start(this::accept);
    }

    /** The server's URI with the proxy's port. */
    URI uri(URI server) {
        return URI.create(server.getScheme() + "://127.0.0.1:" + listener.getLocalPort() + server.getRawPath());
    }

    /** Applies to connections opened from now on. */
    void mode(Mode next) {
        mode = next;
    }

    /** Where connections opened from now on go. */
    void target(int port) {
        targetPort = port;
    }

    /** Closes every connection open now, as a network failure would. */
    void cutAll() {
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                sockets.add(client);
                Thread.ofPlatform().daemon().name("proxy-conn").start(() -> serve(client));
            } catch (IOException x) {
                return; // closed
            }
        }
    }

    private void serve(Socket client) {
        Socket server = null;
        try {
            InputStream in = client.getInputStream();
            byte[] head = readHead(in);
            if (head == null) {
                return;
            }
            boolean upgrade = new String(head, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT).contains("\r\nupgrade: websocket");
            Mode now = upgrade ? mode : Mode.FORWARD;
            if (upgrade) {
                upgrades.incrementAndGet();
            }
            switch (now) {
                case SWALLOW -> {
                    while (in.read(new byte[4096]) >= 0) {
                        // Read and dropped, never answered.
                    }
                    return;
                }
                case CUT -> {
                    return;
                }
                default -> {
                }
            }
            server = new Socket();
            sockets.add(server);
            server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5000);
            server.getOutputStream().write(head);
            Socket upstream = server;
            Thread.ofPlatform().daemon().name("proxy-up").start(() -> pump(client, upstream, false));
            pump(upstream, client, now == Mode.CUT_AFTER_UPGRADE);
        } catch (IOException x) {
            // A closed connection ends the relay.
        } finally {
            closeQuietly(client);
            if (server != null) {
                closeQuietly(server);
            }
        }
    }

    /** The request line and headers, up to the empty line; null when the connection closed first. */
    private static byte[] readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (head.size() < MAX_HEAD) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            head.write(b);
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
            if (matched == 4) {
                return head.toByteArray();
            }
        }
        throw new IOException("Request head too long");
    }

    /** Copies {@code from} to {@code to} until one closes; with {@code once}, stops after the first response head. */
    private void pump(Socket from, Socket to, boolean once) {
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            if (once) {
                byte[] head = readHead(in);
                if (head != null) {
                    out.write(head);
                    out.flush();
                }
                return;
            }
            byte[] buffer = new byte[16 * 1024];
            for (int n; (n = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException x) {
            // One side closed.
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void closeQuietly(Socket socket) {
        sockets.remove(socket);
        try {
            socket.close();
        } catch (IOException x) {
            // Closed already.
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        cutAll();
        try {
            acceptor.join(5000);
        } catch (InterruptedException x) {
            Thread.currentThread().interrupt();
        }
    }
}
