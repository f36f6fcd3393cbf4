package io.bayeux.load;

import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --stalled-clients} against this project's server: the stalled client joins its room
 * and stops reading, so its session's queue fills on the server while the readers get every
 * message; it is not counted as a receiver, the run reports the delivery time and the memory
 * figures.
 */
class StalledClientsIT {
    @RegisterExtension
    final BenchmarkServerFixture servers = new BenchmarkServerFixture();

    @Test
    @Timeout(120)
    void readersGetEverythingWhileAStalledClientFillsItsQueue() throws Exception {
        TestScenarios.ServerCount count = new TestScenarios.ServerCount();
        NettyBayeuxServer server = servers.start(count);
        // 21 clients in one room, one of them stalled; 1,000-character messages, 4,000 of them.
        Scenario scenario = new Scenario(List.of(server.uri()), Scenario.WEBSOCKET, 21, 1, 1, 1, 2000, 10, Duration.ofMillis(10),
                400, 0, 1000, true, false, Duration.ofSeconds(1), false, null, null, Duration.ofSeconds(60), Duration.ofSeconds(60), 1);

        RunResult result = new ChatBenchmark(scenario, "test", ProcessHandle.current().pid(), 2, TestScenarios.QUIET, false).run();

        Counts counts = result.counts();
        assertEquals("complete", result.drain());
        assertEquals(21, result.connect().connected(), "the readers and the stalled client");
        assertEquals(4000, counts.published());
        assertEquals(4000L * 20, counts.expected(), "twenty readers: the stalled client is no receiver");
        assertEquals(count.deliveries.get(), counts.expected() + 4000, "the server delivered to the stalled session too");
        assertEquals(counts.expected(), counts.received());
        assertEquals(0, counts.lost());
        assertEquals(0, counts.duplicated());
        assertEquals(0, counts.outOfOrder());

        RunResult.Stalled stalled = result.stalled();
        assertNotNull(stalled);
        assertEquals(1, stalled.clients());
        assertNotNull(stalled.deliverySeconds());
        assertTrue(stalled.deliverySeconds() > 0 && stalled.deliverySeconds() < 120, "delivery time " + stalled.deliverySeconds());
        assertTrue(stalled.queuedAfter() > 0, "messages wait in the stalled session's queue: " + stalled.queuedAfter());
        assertNotNull(stalled.directBeforeBytes(), "the stats service answers direct memory");
        assertNotNull(stalled.directAfterBytes());
        assertNotNull(stalled.rssBeforeBytes());
        assertNotNull(stalled.rssAfterBytes());
    }
}
