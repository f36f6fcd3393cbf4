package io.bayeux.cluster.redis;

import io.bayeux.common.LoopbackPorts;
import io.bayeux.testing.Await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
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
 * <p>
 * The system property {@value #SERVER_PROPERTY} names another program to start instead, taking
 * the same options: {@code -Dbayeux.redis.server=valkey-server} runs every Redis test against
 * Valkey (the module's {@code valkey} execution does, for the engine's tests).
 */
public final class RedisProcess implements AutoCloseable {
    static final Duration START = Duration.ofSeconds(30);
    /** The system property naming the server program (default {@value #DEFAULT_SERVER}). */
    public static final String SERVER_PROPERTY = "bayeux.redis.server";
    public static final String DEFAULT_SERVER = "redis-server";

    private final String program;
    private final int port;
    private final Path dir;
    private Process process;

    private RedisProcess(String program, int port, Path dir) {
        this.program = program;
        this.port = port;
        this.dir = dir;
    }

    /** Starts the server named by {@value #SERVER_PROPERTY} (redis-server unless set) on a port free a moment ago. */
    public static RedisProcess start() throws Exception {
        String program = System.getProperty(SERVER_PROPERTY, "").strip();
        return start(program.isEmpty() ? DEFAULT_SERVER : program);
    }

    /** Starts {@code program} ({@code redis-server}, {@code valkey-server}, or a path to one) on a port free a moment ago. */
    public static RedisProcess start(String program) throws Exception {
        Path dir = Files.createTempDirectory("redis-test");
        int port = LoopbackPorts.unused();
        RedisProcess redis = new RedisProcess(program, port, dir);
        redis.restart();
        return redis;
    }

    /** The program started: {@code redis-server}, {@code valkey-server}, ... */
    public String program() {
        return program;
    }

    /** The {@code INFO server} field {@code name} of the running server ({@code redis_version}, {@code server_name}, ...), or null. */
    String info(String name) throws IOException {
        for (String line : command("INFO server").split("\r\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1);
            }
        }
        return null;
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
        process = new ProcessBuilder(List.of(program, "--port", String.valueOf(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString()))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start();
        Await.until(START, () -> ping() || !process.isAlive(), () -> program + " to answer a PING on port " + port);
        if (!process.isAlive()) {
            throw new IllegalStateException(program + " exited: " + Files.readString(dir.resolve("redis.log")));
        }
    }

    /** Kills the server by its pid ({@code SIGKILL}: Redis gone at once, as when it crashes). */
    void kill() throws InterruptedException {
        if (process != null) {
            ProcessHandle.of(process.pid()).ifPresent(ProcessHandle::destroyForcibly);
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Runs one inline command; returns the raw reply (a bulk string whole, however many reads it takes). */
    String command(String line) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = socket.getInputStream();
            java.io.ByteArrayOutputStream reply = new java.io.ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            int n = in.read(buffer);
            if (n < 0) {
                return "";
            }
            reply.write(buffer, 0, n);
            // "$<length>\r\n<bytes>\r\n": read until all of it is here (at most 1 MiB).
            if (buffer[0] == '$') {
                String head = reply.toString(StandardCharsets.US_ASCII);
                int end = head.indexOf("\r\n");
                if (end > 0) {
                    int total = end + 2 + Integer.parseInt(head.substring(1, end)) + 2;
                    while (reply.size() < total && reply.size() < (1 << 20) && (n = in.read(buffer)) >= 0) {
                        reply.write(buffer, 0, n);
                    }
                }
            }
            return reply.toString(StandardCharsets.UTF_8);
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
