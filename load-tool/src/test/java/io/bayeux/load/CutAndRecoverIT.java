package io.bayeux.load;

import com.fasterxml.jackson.databind.JsonNode;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --cut-every} with {@code --cut-for} longer than the server's {@code maxInterval}: a cut
 * client stays away until its session expired, then handshakes again. With {@code --recover} and
 * rooms with history it gets back exactly what it missed; without, the run shows the loss.
 */
class CutAndRecoverIT {
    private static final Duration MAX_INTERVAL = Duration.ofMillis(1000);
    /** Longer than the max interval and the sweeper's period (1 s) together: the session is gone when the client comes back. */
    private static final Duration CUT_FOR = Duration.ofMillis(2500);

    private NettyBayeuxServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop();
        }
    }

    /** Rooms with a history deep enough for any cut of this run; sessions expire after {@link #MAX_INTERVAL}. */
    private NettyBayeuxServer start(AtomicLong expired) {
        BenchmarkServer.Settings settings = BenchmarkServer.Settings.defaults("127.0.0.1", 0)
                .withMaxInterval(MAX_INTERVAL)
                .withHistory(HistoryPolicy.of(2000, Duration.ofMinutes(5)));
        server = BenchmarkServer.builder(settings, bayeux -> bayeux.addListener(new BayeuxServer.SessionListener() {
            @Override
            public void sessionAdded(ServerSession session, ServerMessage message) {
            }

            @Override
            public void sessionRemoved(ServerSession session, ServerMessage message, boolean timeout) {
                if (timeout) {
                    expired.incrementAndGet();
                }
            }
        })).build().start();
        return server;
    }

    /** 100 clients in 20 rooms, 5 each; 500 messages/s for 4 s; a client cut every 0.4 s for 2.5 s. */
    private static Scenario scenario(NettyBayeuxServer server, boolean recover) {
        return TestScenarios.scenario(server.uri(), Scenario.WEBSOCKET, 100, 400)
                .withCuts(Duration.ofMillis(400), CUT_FOR, recover);
    }

    @Test
    @Timeout(90)
    void clientsWhoseSessionsExpiredWhileCutRecoverEveryMessageExactlyOnce() throws Exception {
        AtomicLong expired = new AtomicLong();
        NettyBayeuxServer server = start(expired);

        RunResult result = new ChatBenchmark(scenario(server, true), "recover", null, 2, TestScenarios.QUIET, false).run();

        Counts counts = result.counts();
        RunResult.Recovery recovery = result.recovery();
        assertNotNull(recovery);
        assertTrue(result.connect().cuts() > 0, "connections were cut");
        assertTrue(expired.get() > 0, "sessions expired on the server while their clients were away");
        assertTrue(result.connect().rehandshakes() > 0, "clients handshook again: " + result.connect());
        assertTrue(recovery.recovered() > 0, recovery.toString());
        assertTrue(recovery.replayed() > 0, "what the cut clients missed was replayed: " + recovery);
        assertEquals(0, recovery.notRecovered(), recovery.toString());
        assertEquals(Map.of(), recovery.reasons());
        assertEquals("complete", result.drain());
        assertEquals(100, result.connect().connected(), "every client is back");
        assertEquals(0, counts.lost(), counts.toString());
        assertEquals(0, counts.duplicated(), counts.toString());
        assertEquals(0, counts.unexpected(), counts.toString());
        // Publishers are clients neither cut nor away; a cut may still catch a batch in flight.
        assertTrue(counts.failedPublishes() <= (long) result.connect().cuts() * 5, counts.toString());
        assertEquals(counts.expected(), counts.received() - counts.lateFailed(), "every expected delivery once, the replayed ones included");

        // The three outputs tell it: the summary table, the JSON and the HTML report.
        ByteArrayOutputStream summary = new ByteArrayOutputStream();
        Summary.print(result, new PrintStream(summary, true, StandardCharsets.UTF_8));
        assertTrue(summary.toString(StandardCharsets.UTF_8).contains(String.format(Locale.ROOT,
                "recovery        %,d subscriptions recovered, %,d messages replayed; 0 not recovered", recovery.recovered(), recovery.replayed())),
                summary.toString(StandardCharsets.UTF_8));
        JsonNode json = Summary.JSON.valueToTree(result);
        assertEquals(recovery.replayed(), json.get("recovery").get("replayed").asLong());
        assertEquals(recovery.recovered(), json.get("recovery").get("recovered").asLong());
        assertTrue(json.get("scenario").get("recover").asBoolean());
        assertEquals(CUT_FOR.toMillis() / 1000.0, json.get("scenario").get("cutForSeconds").asDouble());
        String html = HtmlReport.render(List.of(result), null);
        assertTrue(html.contains("<h2>Recovery</h2>"), "the report's recovery table");
        assertTrue(html.contains(String.format(Locale.ROOT, "<td>%,d</td><td>%,d</td><td>0</td></tr>", recovery.recovered(), recovery.replayed())), html);
    }

    @Test
    @Timeout(90)
    void withoutRecoveryTheSameCutsShowTheLoss() throws Exception {
        AtomicLong expired = new AtomicLong();
        NettyBayeuxServer server = start(expired);

        RunResult result = new ChatBenchmark(scenario(server, false), "no recovery", null, 2, TestScenarios.QUIET, false).run();

        Counts counts = result.counts();
        assertNull(result.recovery(), "recovery is off");
        assertTrue(expired.get() > 0, "sessions expired on the server while their clients were away");
        assertTrue(result.connect().rehandshakes() > 0, result.connect().toString());
        assertEquals("quiet", result.drain(), "everyone is back and nothing more comes: the missing messages are lost");
        assertTrue(counts.lost() > 0, "what expired sessions missed is lost: " + counts);
        assertEquals(0, counts.duplicated(), counts.toString());
        assertEquals(counts.expected() - counts.lost(), counts.received() - counts.lateFailed(), counts.toString());
    }
}
