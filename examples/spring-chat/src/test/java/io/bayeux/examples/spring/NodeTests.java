package io.bayeux.examples.spring;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Runs a directory of {@code node --test} files against the example on {@code port}, with the
 * endpoint in {@code BAYEUX_URL}; the npm packages come from interop-tests' locked
 * {@code node_modules}, installed with {@code npm ci} when missing. Needs Node 20+ and npm.
 */
final class NodeTests {
    private static final Duration NPM_CI_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration NODE_TEST_TIMEOUT = Duration.ofMinutes(2);

    private NodeTests() {
    }

    /** Runs the tests of {@code directory} (relative to the module) and checks that {@code passing} of them pass and none fails. */
    static void run(String directory, int port, int passing) throws IOException, InterruptedException {
        Path module = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize();
        Path packages = module.resolve("../../interop-tests/src/test/node").normalize();
        if (!Files.isDirectory(packages.resolve("node_modules"))) {
            exec(List.of("npm", "ci", "--no-audit", "--no-fund"), packages, NPM_CI_TIMEOUT, module.resolve("target/npm-ci.log"), port);
        }
        String log = "target/" + Path.of(directory).getFileName() + "-tests.log";
        String output = exec(List.of("node", "--test", "--test-force-exit", "--test-concurrency=1", "--test-reporter=spec", directory),
                module, NODE_TEST_TIMEOUT, module.resolve(log), port);
        assertTrue(output.contains("pass " + passing) && output.contains("fail 0"), () -> "expected " + passing + " passing tests:\n" + output);
    }

    /** Runs a command with its output in {@code log}; fails with the output's end unless it exits with 0 in time. */
    private static String exec(List<String> command, Path directory, Duration timeout, Path log, int port)
            throws IOException, InterruptedException {
        Files.createDirectories(log.getParent());
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("BAYEUX_URL", "http://127.0.0.1:" + port + "/cometd");
        Process process = builder.start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            fail(String.join(" ", command) + " did not finish within " + timeout + ":\n" + tail(log));
        }
        String output = tail(log);
        System.out.println(output);
        assertEquals(0, process.exitValue(), () -> String.join(" ", command) + " failed:\n" + output);
        return output;
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
    }
}
