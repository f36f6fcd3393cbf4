package io.bayeux.examples.spring;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

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
 * The Spring chat example with the JavaScript clients under Node: this project's
 * ({@code js-client}) and CometD's, each over WebSocket and long-polling. Runs
 * {@code node --test} on {@code src/test/node} with the endpoint in {@code BAYEUX_URL}; the npm
 * packages come from interop-tests' locked {@code node_modules}, installed with {@code npm ci}
 * when missing. Needs Node 20+ and npm on the PATH.
 */
@SpringBootTest(classes = SpringChatApplication.class, properties = {"bayeux.port=0", "chat.max-length=20"})
class SpringChatNodeIT {
    private static final Duration NPM_CI_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration NODE_TEST_TIMEOUT = Duration.ofMinutes(2);

    @Value("${local.bayeux.port}")
    int port;

    @Test
    void theJavaScriptClientsChatOverBothTransports() throws Exception {
        Path module = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize();
        Path packages = module.resolve("../../interop-tests/src/test/node").normalize();
        if (!Files.isDirectory(packages.resolve("node_modules"))) {
            run(List.of("npm", "ci", "--no-audit", "--no-fund"), packages, NPM_CI_TIMEOUT, module.resolve("target/npm-ci.log"));
        }
        run(List.of("node", "--test", "--test-force-exit", "--test-reporter=spec", "src/test/node/"), module, NODE_TEST_TIMEOUT,
                module.resolve("target/node-tests.log"));
    }

    /** Runs a command with its output in {@code log}; fails with the output's end unless it exits with 0 in time. */
    private void run(List<String> command, Path directory, Duration timeout, Path log) throws IOException, InterruptedException {
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
        if (command.get(0).equals("node")) {
            assertTrue(output.contains("pass 4") && output.contains("fail 0"), () -> "expected four passing tests:\n" + output);
        }
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
    }
}
