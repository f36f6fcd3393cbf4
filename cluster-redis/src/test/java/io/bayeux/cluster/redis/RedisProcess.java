package io.bayeux.cluster.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} of the tests' own: on a free loopback port, no persistence, in a
 * temporary directory; stopped by its pid. The demo's tests use it too (this module's test jar).
 */
public final class RedisProcess implements AutoCloseable {
    static final Duration START = Duration.ofSeconds(30);

    private final int port;
    private final Path dir;
    private Process process;

    private RedisProcess(int port, Path dir) {
        this.port = port;
        this.dir = dir;
    }

    /** Starts a redis-server on a port free a moment ago. */
    public static RedisProcess start() throws Exception {
        Path dir = Files.createTempDirectory("redis-test");
        int port;
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress("127.0.0.1", 0));
            port = probe.getLocalPort();
        }
        RedisProcess redis = new RedisProcess(port, dir);
        redis.restart();
        return redis;
    }

    int port() {
        return port;
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** Starts the server (again) on the same port; returns once it answers PING. */
    void restart() throws Exception {
        if (isAlive()) {
            throw new IllegalStateException("running");
        }
        process = new ProcessBuilder(List.of("redis-server", "--port", String.valueOf(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString()))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start();
        long deadline = System.nanoTime() + START.toNanos();
        while (!ping()) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server exited: " + Files.readString(dir.resolve("redis.log")));
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("redis-server did not answer within " + START);
            }
            Thread.sleep(20);
        }
    }

    /** Kills the server by its pid ({@code SIGKILL}: Redis gone at once, as when it crashes). */
    void kill() throws InterruptedException {
        if (process != null) {
            ProcessHandle.of(process.pid()).ifPresent(ProcessHandle::destroyForcibly);
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Runs one inline command; returns the raw reply. */
    String command(String line) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[8192];
            int n = in.read(buffer);
            return n < 0 ? "" : new String(buffer, 0, n, StandardCharsets.UTF_8);
        }
    }

    private boolean ping() {
        try {
            return command("PING").startsWith("+PONG");
        } catch (IOException x) {
            return false;
        }
    }

    @Override
    public void close() throws Exception {
        if (process != null) {
            ProcessHandle.of(process.pid()).ifPresent(ProcessHandle::destroy);
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                ProcessHandle.of(process.pid()).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
