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
    /** The configuration file, first argument (a Sentinel's: it rewrites it); null for none. */
    private final Path configFile;
    /** Options after the common ones. */
    private final List<String> options;
    private Process process;

    private RedisProcess(String program, int port, Path dir, Path configFile, List<String> options) {
        this.program = program;
        this.port = port;
        this.dir = dir;
        this.configFile = configFile;
        this.options = List.copyOf(options);
    }

    /** The program {@value #SERVER_PROPERTY} names: {@value #DEFAULT_SERVER} unless set. */
    static String namedServer() {
        String program = System.getProperty(SERVER_PROPERTY, "").strip();
        return program.isEmpty() ? DEFAULT_SERVER : program;
    }

    /** Starts the server named by {@value #SERVER_PROPERTY} (redis-server unless set) on a port free a moment ago. */
    public static RedisProcess start() throws Exception {
        return start(namedServer());
    }

    /** Starts {@code program} ({@code redis-server}, {@code valkey-server}, or a path to one) on a port free a moment ago. */
    public static RedisProcess start(String program) throws Exception {
        return start(program, List.of());
    }

    /** Starts {@code program} with {@code options} after the usual ones (port, loopback, no persistence, its directory). */
    static RedisProcess start(String program, List<String> options) throws Exception {
        return start(program, null, options);
    }

    /** Starts a replica of {@code master}, by the same program; returns once it answers PING (not once it is in sync). */
    static RedisProcess replicaOf(RedisProcess master) throws Exception {
        return start(master.program, List.of("--replicaof", "127.0.0.1", String.valueOf(master.port)));
    }

    /**
     * Starts a Sentinel ({@code --sentinel}, by the same program as {@code master}) watching
     * {@code master} as {@code name} with a quorum of 2, and short timings: {@code master} down
     * after {@code downAfter} without an answer, a failover given up after {@code failoverTimeout}.
     */
    static RedisProcess sentinel(RedisProcess master, String name, Duration downAfter, Duration failoverTimeout) throws Exception {
        String config = String.join("\n",
                "sentinel monitor " + name + " 127.0.0.1 " + master.port + " 2",
                "sentinel down-after-milliseconds " + name + " " + downAfter.toMillis(),
                "sentinel failover-timeout " + name + " " + failoverTimeout.toMillis(),
                "sentinel parallel-syncs " + name + " 1", "");
        return start(master.program, config, List.of("--sentinel"));
    }

    private static RedisProcess start(String program, String config, List<String> options) throws Exception {
        Path dir = Files.createTempDirectory("redis-test");
        Path configFile = null;
        if (config != null) {
            configFile = Files.writeString(dir.resolve("redis.conf"), config);
        }
        int port = LoopbackPorts.unused();
        RedisProcess redis = new RedisProcess(program, port, dir, configFile, options);
        try {
            redis.restart();
        } catch (Exception | Error x) {
            redis.close();
            throw x;
        }
        return redis;
    }

    /** The program started: {@code redis-server}, {@code valkey-server}, ... */
    public String program() {
        return program;
    }

    /** The {@code INFO server} field {@code name} of the running server ({@code redis_version}, {@code server_name}, ...), or null. */
    String info(String name) throws IOException {
        return info("server", name);
    }

    /** The field {@code name} of the {@code INFO} section {@code section} ({@code replication}, {@code sentinel}, ...), or null. */
    String info(String section, String name) throws IOException {
        for (String line : command("INFO " + section).split("\r\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1);
            }
        }
        return null;
    }

    /** The server's log so far (what it wrote to stdout and stderr), for a failure's message. */
    String log() {
        try {
            return Files.readString(dir.resolve("redis.log"));
        } catch (IOException x) {
            return x.toString();
        }
    }

    int port() {
        return port;
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** The server's process id. */
    public long pid() {
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
        List<String> command = new java.util.ArrayList<>(List.of(program));
        if (configFile != null) {
            command.add(configFile.toString());
        }
        command.addAll(List.of("--port", String.valueOf(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString()));
        command.addAll(options);
        process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start();
        Await.until(START, () -> ping() || !process.isAlive(), () -> program + " to answer a PING on port " + port);
        if (!process.isAlive()) {
            throw new IllegalStateException(program + " exited: " + Files.readString(dir.resolve("redis.log")));
        }
    }

    /** Kills the server by its pid ({@code SIGKILL}: Redis gone at once, as when it crashes). */
    public void kill() throws InterruptedException {
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
