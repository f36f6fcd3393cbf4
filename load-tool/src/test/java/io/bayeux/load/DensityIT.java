package io.bayeux.load;

import io.bayeux.server.internal.BayeuxServerImpl;
import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The density mode against this project's server over real sockets: a warm-up round of 20
 * clients whose sessions and channels are gone before the baseline, then 200 idle clients in two
 * steps over two source addresses, each in 10 channels, a broadcast that reaches every one,
 * timed inside the server too, and two connect-all / leave-all rounds after which the server holds
 * no session of theirs.
 */
class DensityIT {
    @RegisterExtension
    final BenchmarkServerFixture servers = new BenchmarkServerFixture();

    @Test
    @Timeout(120)
    void idleClientsOverTwoSourceAddressesAreCountedReachedAndGone() throws Exception {
        TestScenarios.ServerCount count = new TestScenarios.ServerCount();
        NettyBayeuxServer server = servers.start(count.andThen(bayeux -> ((BayeuxServerImpl) bayeux).observe(new DeliveryTiming())));
        DensityRun.Settings settings = new DensityRun.Settings(server.uri(), null, List.of(100, 200), DensityCommand.sourceAddresses(2),
                true, 100, 10, 50, 2, Duration.ZERO, Duration.ofSeconds(10), 1024 * 1024, Duration.ofSeconds(60), 2, true, 20, 1, 3);

        DensityRun.Result result = new DensityRun(settings, TestScenarios.QUIET).run();

        long empty = result.empty().sessions();
        assertEquals(result.neverUsed().sessions(), empty, "the warm-up round's sessions are gone before the baseline");
        assertEquals(result.neverUsed().channels(), result.empty().channels(), "and so are the channels its clients subscribed to");
        assertEquals(2, result.steps().size());
        assertEquals(empty + 100, result.steps().get(0).sample().sessions(), "every client of the first step has its session");
        assertEquals(empty + 200, result.steps().get(1).sample().sessions());
        assertNotNull(result.steps().get(1).sample().directBytes(), "the stats service answers direct memory");
        assertEquals(Map.of("127.0.0.2", 210, "127.0.0.3", 210), result.clientsPerSourceAddress(),
                "a warm-up round of 20 clients and two rounds of 200, half from each source address");
        assertEquals(2, result.rounds().size());
        for (DensityRun.Round round : result.rounds()) {
            assertEquals(200, round.clients());
            assertEquals(200, round.broadcastArrivals(), "round " + round.round() + ": the broadcast reached every client");
            assertNotNull(round.broadcastMillis());
            assertEquals(2, round.laterBroadcastsMillis().size(), "round " + round.round() + ": two broadcasts after the first");
            assertTrue(round.everyBroadcastArrived(), "round " + round.round() + ": each reached every client: " + round.laterBroadcastsMillis());
            assertNotNull(round.serverBroadcastMillis(), "round " + round.round() + ": the server timed its part of the broadcast");
            assertTrue(round.serverBroadcastMillis() <= round.broadcastMillis(),
                    "the server's part " + round.serverBroadcastMillis() + " ms is within the whole " + round.broadcastMillis() + " ms");
            assertNotNull(round.settleSeconds(), "round " + round.round() + ": the sessions were gone within the settle time");
            assertEquals(empty, round.after().sessions());
            assertEquals(result.empty().channels(), round.after().channels(), "round " + round.round() + ": the rooms were swept");
        }
        assertEquals(1 + 2 * 3, count.published.get(), "three broadcasts per round and one in the warm-up");
        assertEquals(20 + 2 * 3 * 200, count.deliveries.get(), "every client subscribed to the broadcast channel");
        assertTrue(DensityCommand.passed(result));
        String report = DensityReport.html(List.of(new DensityReport.Run("this run", Summary.JSON.valueToTree(result))));
        assertTrue(report.contains("<td>2 of 2</td>"), "the report says both rounds were back to empty");
        assertEquals(5, report.split("<img ", -1).length - 1, "and charts them");
    }

    @Test
    @Timeout(120)
    void clientsOfAServerThatCompressesWithContextInflateEveryFrameWithTheirOwnContext() throws Exception {
        // The server keeps context between a connection's messages: each client inflates with
        // an inflater of its own, where it shares its loop's when the server keeps none.
        TestScenarios.ServerCount count = new TestScenarios.ServerCount();
        NettyBayeuxServer server = BenchmarkServer.builder(BenchmarkServer.Settings.defaults("127.0.0.1", 0), count, () -> null)
                .websocketCompressionContext(true).build().start();
        try {
            DensityRun.Settings settings = new DensityRun.Settings(server.uri(), null, List.of(100), DensityCommand.sourceAddresses(2),
                    true, 100, 10, 50, 2, Duration.ZERO, Duration.ofSeconds(10), 1024 * 1024, Duration.ofSeconds(60), 2, true, 0, 1, 1);

            DensityRun.Result result = new DensityRun(settings, TestScenarios.QUIET).run();

            assertEquals(2, result.rounds().size());
            for (DensityRun.Round round : result.rounds()) {
                assertEquals(100, round.clients(), "round " + round.round() + ": every client handshook, connected and subscribed");
                assertEquals(100, round.broadcastArrivals(), "round " + round.round() + ": the broadcast reached every client");
            }
            assertTrue(server.websocketCompressions() > 0, "the clients' frames were compressed");
        } finally {
            server.stop();
        }
    }

    @Test
    @Timeout(120)
    void clientsSpreadOverTwoProcessesAreCountedReachedAndGoneTogether() throws Exception {
        TestScenarios.ServerCount count = new TestScenarios.ServerCount();
        NettyBayeuxServer server = servers.start(count);
        DensityRun.Settings settings = new DensityRun.Settings(server.uri(), null, List.of(301), DensityCommand.sourceAddresses(2),
                false, 100, 10, 50, 1, Duration.ZERO, Duration.ofSeconds(10), 1024 * 1024, Duration.ofSeconds(60), 1, true, 0, 2, 1);

        DensityRun.Result result = new DensityRun(settings, TestScenarios.QUIET).run();

        long empty = result.empty().sessions();
        assertEquals(empty + 301, result.steps().get(0).sample().sessions(), "both processes' clients have their sessions");
        DensityRun.Round round = result.rounds().get(0);
        assertEquals(301, round.clients(), "the ready clients of both processes, summed");
        assertEquals(301, round.broadcastArrivals(), "the broadcast's arrivals in both processes, summed");
        assertNotNull(round.broadcastMillis());
        assertEquals(301, count.deliveries.get(), "every client of both processes subscribed to the broadcast channel");
        assertEquals(Map.of("127.0.0.2", 151, "127.0.0.3", 150), result.clientsPerSourceAddress(),
                "client i from source address i mod 2, in whichever process it lives");
        assertEquals(empty, round.after().sessions(), "every client of both processes left");
    }

    @Test
    @Timeout(120)
    void theClientsEventLoopsRunInSchedBatchUnlessAskedNot() throws Exception {
        NettyBayeuxServer server = servers.start(new TestScenarios.ServerCount());
        for (boolean batch : new boolean[]{true, false}) {
            try (IdleClients clients = new IdleClients(server.uri(), DensityCommand.sourceAddresses(2), true, 100, 10, 50, 2, batch,
                    Duration.ofSeconds(60), 0, 1)) {
                clients.open(20, Duration.ofSeconds(60));

                assertEquals(20, clients.ready(), "every client connected and subscribed over its real socket");
                int expected = batch ? BatchScheduling.SCHED_BATCH : BatchScheduling.SCHED_OTHER;
                assertEquals(List.of(expected, expected), clients.loopPolicies(), "batch: " + batch);
                clients.leaveAll(Duration.ofSeconds(30));
            }
        }
    }
}
