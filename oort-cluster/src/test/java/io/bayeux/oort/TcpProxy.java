package io.bayeux.oort;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy on loopback that can silently drop either direction, as a broken network does:
 * bytes are read and discarded, nothing is closed, so neither end learns of it from TCP. With
 * one direction dropped the link is half-open. Each connection takes two threads (test code).
 */
final class TcpProxy implements AutoCloseable {
    private final ServerSocket server;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    /** Whether bytes from the dialer to the target flow. */
    private volatile boolean toTarget = true;
    /** Whether bytes from the target back to the dialer flow. */
    private volatile boolean toDialer = true;
    private volatile boolean closed;

    TcpProxy(int targetPort) throws IOException {
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "proxy-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Both directions dropped: a partition. */
    void cut() {
        toTarget = false;
        toDialer = false;
    }

    /** Only the target's answers are dropped: the dialer's bytes still arrive. */
    void cutReplies() {
        toTarget = true;
        toDialer = false;
    }

    void heal() {
        toTarget = true;
        toDialer = true;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket dialer = server.accept();
                Socket target = new Socket();
                target.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5000);
                dialer.setTcpNoDelay(true);
                target.setTcpNoDelay(true);
                sockets.add(dialer);
                sockets.add(target);
                pump(dialer, target, true);
                pump(target, dialer, false);
            } catch (IOException x) {
                if (!closed) {
                    continue;
                }
                return;
            }
        }
    }

    private void pump(Socket from, Socket to, boolean towardTarget) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream()) {
                OutputStream out = to.getOutputStream();
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    if (towardTarget ? toTarget : toDialer) {
                        out.write(buffer, 0, read);
                        out.flush();
                    }
                }
                if (towardTarget ? toTarget : toDialer) {
                    to.shutdownOutput();
                }
            } catch (IOException x) {
                // One side went away.
            }
        }, "proxy-pump-" + from.getPort());
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
