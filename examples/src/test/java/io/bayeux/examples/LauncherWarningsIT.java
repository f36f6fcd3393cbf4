package io.bayeux.examples;

import io.bayeux.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The launchers start the JVM with the flags Netty needs: a newcomer sees no JVM warnings. */
class LauncherWarningsIT {
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    private static final Pattern ENDPOINT = Pattern.compile("endpoint (http://[^ )]+)\\)");
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    @Timeout(180)
    void theDemoLauncherStartsServesAndStopsWithoutAnyJvmWarning() throws Exception {
        ProcessBuilder builder = new ProcessBuilder(ROOT.resolve("bin/bayeux-demo").toString(), "--port", "0", "--host", "127.0.0.1")
                .redirectErrorStream(true);
        // Maven built examples/target already (the package phase runs before this test).
        builder.environment().put("BAYEUX_NO_BUILD", "1");
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process process = builder.start();
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process ended
            }
        }, "demo-output");
        reader.setDaemon(true);
        reader.start();
        try {
            URI endpoint = URI.create(awaitEndpoint(process, lines));
            // A handshake over the network, so that the transport's buffers and pipeline are used too.
            try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()) {
                HttpResponse<String> reply = http.send(HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(
                                "[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"long-polling\"]}]"))
                        .build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, reply.statusCode());
                assertTrue(reply.body().contains("\"successful\":true"), reply.body());
            }
        } finally {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
            }
            reader.join(TimeUnit.SECONDS.toMillis(10));
        }
        List<String> warnings = lines.stream().filter(line -> line.startsWith("WARNING:")).toList();
        assertTrue(warnings.isEmpty(), "the JVM warned:\n" + String.join("\n", lines));
    }

    @Test
    @Timeout(60)
    void theLaunchersAndTheBuildGiveTheJvmTheSameFlags() throws Exception {
        ProcessBuilder builder = new ProcessBuilder("bash", "-c",
                "source bin/find-jdk && source bin/jvm-flags && echo \"${jvm_flags[*]}\"")
                .directory(ROOT.toFile()).redirectErrorStream(true);
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process process = builder.start();
        process.getOutputStream().close();
        String printed = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), printed);
        assertEquals(System.getProperty("bayeux.jvm.flags"), printed, "bin/jvm-flags and the root pom's bayeux.jvm.flags differ");
    }

    private static String awaitEndpoint(Process process, List<String> lines) throws InterruptedException {
        Await.until(WAIT, () -> endpoint(lines) != null || !process.isAlive(), () -> "bin/bayeux-demo to start:\n" + String.join("\n", lines));
        String endpoint = endpoint(lines);
        if (endpoint == null) {
            throw new AssertionError("bin/bayeux-demo exited (" + process.exitValue() + "):\n" + String.join("\n", lines));
        }
        return endpoint;
    }

    /** The endpoint the demo printed, or null before it did. */
    private static String endpoint(List<String> lines) {
        for (String line : lines) {
            Matcher matcher = ENDPOINT.matcher(line);
            if (matcher.find()) {
                return matcher.group(1);
            }
        }
        return null;
    }
}
