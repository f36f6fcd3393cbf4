package io.bayeux.interop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * Runs the Node scripts of {@code src/test/node} (installing their locked dependencies with
 * {@code npm ci} first when {@code node_modules} is missing or older than the lock file), streaming their output into the
 * test log. Needs {@code node} (20+) and {@code npm} on the PATH, and the npm registry the first
 * time; {@code -Dinterop.node.skip=true} skips the tests that use it.
 */
final class NodeScripts {
    private static final Duration NPM_CI_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration NODE_TEST_TIMEOUT = Duration.ofMinutes(3);
    private static final int TAIL_LINES = 60;

    private NodeScripts() {
    }

    /**
     * Runs {@code node --test} with these arguments in {@code src/test/node} and the environment,
     * and asserts that it exits with 0; skips the calling test when {@code interop.node.skip} is set.
     */
    static void nodeTest(List<String> arguments, Map<String, String> environment) throws Exception {
        assumeFalse(Boolean.getBoolean("interop.node.skip"), "interop.node.skip is set");
        Path folder = Path.of(System.getProperty("basedir", "."), "src", "test", "node").toAbsolutePath().normalize();
        assertTrue(Files.isRegularFile(folder.resolve("package-lock.json")), "No package-lock.json in " + folder);
        if (!installed(folder)) {
            Result install = run(List.of("npm", "ci", "--no-audit", "--no-fund"), folder, Map.of(), NPM_CI_TIMEOUT);
            assertEquals(0, install.exitCode(), () -> "npm ci failed in " + folder + ":\n" + install.tail());
        }
        // --test-force-exit: Faye's client sometimes keeps a handle open after its disconnect, which would hold the run until its timeout.
        List<String> command = new ArrayList<>(List.of("node", "--test", "--test-force-exit", "--test-reporter=spec"));
        command.addAll(arguments);
        Result tests = run(command, folder, environment, NODE_TEST_TIMEOUT);
        assertEquals(0, tests.exitCode(), () -> String.join(" ", command) + " failed with " + environment + ":\n" + tests.tail());
    }

    private record Result(int exitCode, String tail) {
    }

    /** Whether {@code node_modules} is there and installed from the current lock file (npm records what it installed in it). */
    private static boolean installed(Path folder) throws IOException {
        Path record = folder.resolve("node_modules").resolve(".package-lock.json");
        return Files.isRegularFile(record)
                && Files.getLastModifiedTime(record).compareTo(Files.getLastModifiedTime(folder.resolve("package-lock.json"))) >= 0;
    }

    /** Runs a command, echoing its output line by line; kills it (and its children) past the timeout. */
    private static Result run(List<String> command, Path directory, Map<String, String> environment, Duration timeout)
            throws IOException, InterruptedException {
        System.out.println("[interop] " + String.join(" ", command) + " in " + directory);
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true);
        builder.environment().putAll(environment);
        Process process;
        try {
            process = builder.start();
        } catch (IOException x) {
            fail("Cannot run " + command.get(0) + " (is Node.js 20+ with npm on the PATH? -Dinterop.node.skip=true skips this test): " + x.getMessage(), x);
            throw x;
        }
        Deque<String> tail = new ArrayDeque<>();
        Thread pump = Thread.ofPlatform().daemon().name("interop-" + command.get(0) + "-output").start(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    System.out.println("[" + command.get(0) + "] " + line);
                    synchronized (tail) {
                        tail.addLast(line);
                        if (tail.size() > TAIL_LINES) {
                            tail.removeFirst();
                        }
                    }
                }
            } catch (IOException x) {
                System.out.println("[interop] output of " + command.get(0) + " ended: " + x);
            }
        });
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            pump.join(TimeUnit.SECONDS.toMillis(5));
            fail(String.join(" ", command) + " did not finish within " + timeout + "; last output:\n" + tailOf(tail));
        }
        pump.join(TimeUnit.SECONDS.toMillis(10));
        return new Result(process.exitValue(), tailOf(tail));
    }

    private static String tailOf(Deque<String> tail) {
        synchronized (tail) {
            return String.join("\n", tail);
        }
    }
}
