package io.bayeux.load;

import com.fasterxml.jackson.databind.JsonNode;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command line end to end: its exit code, its JSON and its HTML report. */
class OutputsIT {
    @RegisterExtension
    final BenchmarkServerFixture servers = new BenchmarkServerFixture();

    @Test
    @Timeout(120)
    void theJsonHoldsEveryCountAndTheReportHoldsTheChartsAndParameters(@TempDir Path dir) throws Exception {
        TestScenarios.ServerCount count = new TestScenarios.ServerCount();
        NettyBayeuxServer server = servers.start(count);
        Path json = dir.resolve("run.json");
        Path report = dir.resolve("run.html");

        int exit = LoadTool.commandLine().execute("--url", server.uri().toString(), "--clients", "100", "--rooms", "10",
                "--rooms-per-client", "3", "--batches", "50", "--warmup-batches", "5", "--rate", "500", "--ramp-up", "2000",
                "--label", "outputs test", "--json", json.toString(), "--report", report.toString());

        assertEquals(0, exit, "no loss, no duplicates");
        JsonNode root = Summary.JSON.readTree(json.toFile());
        JsonNode counts = root.get("counts");
        assertEquals(count.deliveries.get(), counts.get("expected").asLong());
        assertEquals(count.deliveries.get(), counts.get("received").asLong());
        assertEquals(0, counts.get("lost").asLong());
        assertEquals(0, counts.get("duplicated").asLong());
        assertEquals(55 * 10, counts.get("published").asLong());
        assertEquals(100, root.get("scenario").get("clients").asInt());
        assertEquals("outputs test", root.get("label").asText());
        assertTrue(root.get("latency").get("p99").asLong() >= root.get("latency").get("p50").asLong());
        assertTrue(root.get("percentiles").size() > 1);
        assertTrue(root.get("timeline").size() >= 1);
        assertTrue(root.get("rates").get("deliveredPerSecond").asDouble() > 0);

        String html = Files.readString(report);
        Matcher images = Pattern.compile("<img alt=\"([^\"]+)\" src=\"data:image/png;base64,[A-Za-z0-9+/=]{1000,}\">").matcher(html);
        int found = 0;
        while (images.find()) {
            found++;
        }
        assertEquals(2, found, "the latency plot and the rate chart, embedded");
        assertTrue(html.contains("<td>roomsPerClient</td><td>3</td>"), "the parameters");
        assertTrue(html.contains("<td>clients</td><td>100</td>"), "the parameters");
        assertTrue(html.contains("outputs test"));
        assertTrue(!html.contains("<script") && !html.contains("http-equiv"), "self-contained, no script");
    }

    @Test
    @Timeout(120)
    void aLossyRunExitsWithOne(@TempDir Path dir) throws Exception {
        NettyBayeuxServer server = servers.start(bayeux -> bayeux.addListener(new io.bayeux.api.server.BayeuxServer.SessionListener() {
            private final java.util.concurrent.atomic.AtomicLong n = new java.util.concurrent.atomic.AtomicLong();

            @Override
            public void sessionAdded(io.bayeux.api.server.ServerSession session, io.bayeux.api.server.ServerMessage message) {
                session.addListener((io.bayeux.api.server.ServerSession.MessageListener) (to, from, m) ->
                        !m.getChannel().startsWith("/chat/") || n.incrementAndGet() % 50 != 0);
            }

            @Override
            public void sessionRemoved(io.bayeux.api.server.ServerSession session, io.bayeux.api.server.ServerMessage message, boolean timeout) {
            }
        }));
        Path json = dir.resolve("lossy.json");
        int exit = LoadTool.commandLine().execute("--url", server.uri().toString(), "--clients", "50", "--rooms", "5",
                "--rooms-per-client", "2", "--batches", "30", "--warmup-batches", "0", "--rate", "500", "--ramp-up", "2000",
                "--drain-timeout", "3s", "--json", json.toString());
        assertEquals(1, exit);
        assertTrue(Summary.JSON.readTree(json.toFile()).get("counts").get("lost").asLong() > 0);
    }
}
