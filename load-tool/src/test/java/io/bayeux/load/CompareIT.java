package io.bayeux.load;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Compare mode: two short rounds against two of this project's servers, each started fresh per run. */
class CompareIT {
    @Test
    @Timeout(240)
    void tworoundsRunInAbbaOrderAgainstFreshServersAndGiveMediansAndRatios(@TempDir Path dir) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String server = "exec '" + java + "' " + System.getProperty("bayeux.jvm.flags", "--enable-native-access=ALL-UNNAMED") + " -cp '" + System.getProperty("java.class.path")
                + "' io.bayeux.load.LoadTool server --port $PORT";
        Path json = dir.resolve("compare.json");
        Path report = dir.resolve("compare.html");

        int exit = LoadTool.commandLine().execute("compare", "--a", server + " --max-queue 50000", "--b", server, "--rounds", "2",
                "--server-logs", dir.resolve("logs").toString(), "--clients", "30", "--rooms", "10", "--rooms-per-client", "2",
                "--batches", "20", "--warmup-batches", "2", "--rate", "500", "--ramp-up", "2000",
                "--json", json.toString(), "--report", report.toString());

        assertEquals(0, exit);
        JsonNode root = Summary.JSON.readTree(json.toFile());
        List<String> order = new ArrayList<>();
        root.get("order").forEach(n -> order.add(n.asText()));
        assertEquals(List.of("A1", "B1", "B2", "A2"), order);
        assertEquals(0, root.get("failedRuns").size());
        JsonNode runs = root.get("runs");
        assertEquals(4, runs.size());
        List<Long> pids = new ArrayList<>();
        for (JsonNode run : runs) {
            assertEquals(0, run.get("counts").get("lost").asLong());
            assertEquals(0, run.get("counts").get("duplicated").asLong());
            assertTrue(run.get("counts").get("expected").asLong() > 0);
            assertTrue(run.get("server").get("cpuSeconds").isNumber(), "the server's pid was found");
            pids.add(run.get("server").get("pid").asLong());
        }
        assertEquals(4, pids.stream().distinct().count(), "a fresh server for every run");
        for (long pid : pids) {
            assertTrue(ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true), "server " + pid + " stopped");
        }
        JsonNode delivered = null;
        for (JsonNode metric : root.get("metrics")) {
            if (metric.get("name").asText().equals("delivered msg/s")) {
                delivered = metric;
            }
        }
        assertNotNull(delivered);
        assertTrue(delivered.get("medianA").asDouble() > 0 && delivered.get("medianB").asDouble() > 0);
        assertEquals(delivered.get("medianA").asDouble() / delivered.get("medianB").asDouble(), delivered.get("ratio").asDouble(), 0.5,
                "the median ratio is near the ratio of medians");
        assertTrue(delivered.get("ratioMin").asDouble() <= delivered.get("ratio").asDouble()
                && delivered.get("ratio").asDouble() <= delivered.get("ratioMax").asDouble());
        String html = Files.readString(report);
        assertTrue(html.contains("Medians and ratios"));
        assertTrue(html.contains("A1") && html.contains("B2"));
        assertTrue(html.split("data:image/png;base64,").length == 3, "two charts");
    }

    @Test
    @Timeout(60)
    void serversThatDoNotStartFailTheirRunsAndShowTheirOutput(@TempDir Path dir) {
        java.io.StringWriter err = new java.io.StringWriter();
        picocli.CommandLine line = LoadTool.commandLine();
        line.setErr(new java.io.PrintWriter(err, true));

        int exit = line.execute("compare", "--a", "echo no server A; exit 3", "--b", "echo no server B; exit 4", "--rounds", "1",
                "--server-logs", dir.resolve("logs").toString(), "--clients", "10");

        assertEquals(2, exit);
        assertTrue(err.toString().contains("A1=The server command exited (3)"), err.toString());
        assertTrue(err.toString().contains("no server A"), "the server's output is shown");
        assertTrue(err.toString().contains("B1=The server command exited (4)"), err.toString());
    }
}
