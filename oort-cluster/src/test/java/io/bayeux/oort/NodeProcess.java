package io.bayeux.oort;

import io.bayeux.common.LoopbackPorts;
import io.bayeux.testing.Await;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** A {@link ClusterNodeMain} in its own JVM, started with the test class path; its event lines recorded. */
final class NodeProcess implements AutoCloseable {
    final int port;
    final String url;
    private final Process process;
    final List<String> lines = new CopyOnWriteArrayList<>();
    volatile String id;

    private NodeProcess(int port, Process process) {
        this.port = port;
        this.url = "http://127.0.0.1:" + port + "/cometd";
        this.process = process;
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.startsWith("READY ")) {
                        id = line.split(" ")[1];
                    }
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // The process ended.
            }
        }, "node-" + port + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /** A port for a node to come: free now, and none an outgoing connection takes meanwhile. */
    static int freePort() throws IOException {
        return LoopbackPorts.unused();
    }

    static NodeProcess start(int port, long failureMillis, String... peers) throws Exception {
        return start("websocket", port, failureMillis, peers);
    }

    /** A node whose links use {@code links} ("websocket", or "long-polling" only). */
    static NodeProcess start(String links, int port, long failureMillis, String... peers) throws Exception {
        return start(ClusterNodeMain.class, links, port, failureMillis, peers);
    }

    /** A node running {@code main} (same arguments as {@link ClusterNodeMain}; prints {@code READY <id>} first). */
    static NodeProcess start(Class<?> main, String links, int port, long failureMillis, String... peers) throws Exception {
        return start(main, List.of(), links, port, failureMillis, peers);
    }

    /** As above, with more JVM options (such as {@code -Dname=value} for {@code main}). */
    static NodeProcess start(Class<?> main, List<String> jvmOptions, String links, int port, long failureMillis, String... peers) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(jvmFlags());
        command.addAll(List.of("-Xmx128m", "-XX:TieredStopAtLevel=1", "-Doort.links=" + links));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"),
                main.getName(), String.valueOf(port), OortTesting.SECRET, String.valueOf(failureMillis)));
        command.addAll(List.of(peers));
        File log = new File("target", "node-" + port + "-" + System.nanoTime() + ".log");
        Process process = new ProcessBuilder(command).redirectError(log).start();
        NodeProcess node = new NodeProcess(port, process);
        node.await("READY", line -> line.startsWith("READY "));
        return node;
    }

    /** The JVM flags Netty needs (the build's bayeux.jvm.flags, as bin/jvm-flags gives the launchers). */
    static List<String> jvmFlags() {
        String flags = System.getProperty("bayeux.jvm.flags", "").strip();
        return flags.isEmpty() ? List.of() : List.of(flags.split("\\s+"));
    }

    /** Waits for a line matching {@code condition}; returns it. */
    String await(String what, Predicate<String> condition) throws InterruptedException {
        Await.until(OortTesting.WAIT, () -> firstLine(condition) != null || !process.isAlive(),
                () -> "node " + url + " to print " + what + "; its lines: " + lines);
        String line = firstLine(condition);
        if (line == null) {
            throw new AssertionError("Node " + url + " died waiting for " + what + "; its lines: " + lines);
        }
        return line;
    }

    private String firstLine(Predicate<String> condition) {
        return lines.stream().filter(condition).findFirst().orElse(null);
    }

    /** The joined nodes, from the JOINED and LEFT lines so far. */
    java.util.Set<String> joined() {
        java.util.Set<String> set = new java.util.HashSet<>();
        for (String line : lines) {
            String[] parts = line.split(" ");
            if (parts[0].equals("JOINED")) {
                set.add(parts[1]);
            } else if (parts[0].equals("LEFT")) {
                set.remove(parts[1]);
            }
        }
        return set;
    }

    /** kill -STOP (true) or kill -CONT (false): a frozen node keeps its sockets open and says nothing. */
    void freeze(boolean frozen) throws Exception {
        Process kill = new ProcessBuilder("kill", frozen ? "-STOP" : "-CONT", String.valueOf(process.pid())).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new AssertionError("kill " + (frozen ? "-STOP" : "-CONT") + " failed");
        }
    }

    /** kill -9. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(15, TimeUnit.SECONDS);
            }
        }
    }
}
