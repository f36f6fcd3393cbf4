package io.bayeux.load;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The chat benchmark against the bare broadcast: a yardstick is only one if it delivers the same messages. */
class BareBroadcastServerIT {
    @ParameterizedTest
    @ValueSource(strings = {Scenario.WEBSOCKET, Scenario.LONG_POLLING})
    @Timeout(120)
    void twoHundredClientsGetEveryMessageOfTheirRoomsExactlyOnce(String transport) throws Exception {
        try (BareBroadcastServer server = new BareBroadcastServer(2, true).start("127.0.0.1", 0)) {
            Scenario scenario = TestScenarios.scenario(server.uri(), transport, 200, 100);

            RunResult result = new ChatBenchmark(scenario, "bare", ProcessHandle.current().pid(), 2, TestScenarios.QUIET, false).run();

            Counts counts = result.counts();
            assertEquals("complete", result.drain());
            assertEquals(200, result.connect().connected());
            assertEquals(105 * 5, counts.published());
            assertTrue(counts.expected() > counts.published(), counts.toString());
            assertEquals(counts.expected(), counts.received());
            assertEquals(0, counts.lost());
            assertEquals(0, counts.duplicated());
            assertEquals(0, counts.unexpected());
            assertEquals(0, counts.failedPublishes());
            assertNotNull(result.server().stats(), "the stats call answered");
            assertEquals(201L, ((Number) result.server().stats().get("sessions")).longValue(), "the clients and the stats client");
            RunResult.Writes writes = result.server().writes();
            assertNotNull(writes, "the stats call told the write counts");
            if (Scenario.WEBSOCKET.equals(transport)) {
                assertEquals(0, counts.outOfOrder());
                // Every delivery is a frame of its own, flushed at once; the replies are frames too.
                assertTrue(writes.framesPerDelivery() >= 1.0 && writes.flushes() == writes.frames(), writes.toString());
                // With the timing on, the last broadcast's arrival and the end of its last write, in that order.
                Long arrival = RunFigures.stat(result.server().stats(), "deliveryNewestArrivalNanos");
                Long flushed = RunFigures.stat(result.server().stats(), "deliveryLastFlushNanos");
                assertTrue(arrival != null && flushed != null && arrival != 0 && flushed - arrival >= 0, arrival + " then " + flushed);
            } else {
                // A held connect is answered with what came for its client: responses, no frames.
                assertEquals(0, writes.frames(), writes.toString());
                assertTrue(writes.flushes() > 0, writes.toString());
            }
        }
    }
}
