package io.bayeux.load;

import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A short chat benchmark against this project's server: every expected delivery arrives exactly once. */
class ChatBenchmarkIT {
    @RegisterExtension
    final BenchmarkServerFixture servers = new BenchmarkServerFixture();

    @ParameterizedTest
    @ValueSource(strings = {Scenario.WEBSOCKET, Scenario.LONG_POLLING})
    @Timeout(120)
    void twoHundredClientsGetEveryMessageOfTheirRoomsExactlyOnce(String transport) throws Exception {
        TestScenarios.ServerCount count = new TestScenarios.ServerCount();
        NettyBayeuxServer server = servers.start(count);
        Scenario scenario = TestScenarios.scenario(server.uri(), transport, 200, 100);

        RunResult result = new ChatBenchmark(scenario, "test", ProcessHandle.current().pid(), 2, TestScenarios.QUIET, false)
                .windows(Duration.ofMillis(300)).run();

        Counts counts = result.counts();
        assertEquals("complete", result.drain());
        assertEquals(200, result.connect().connected());
        assertEquals(105 * 5, counts.published(), "warm-up and measured batches of 5");
        assertEquals(count.published.get(), counts.published(), "what the server saw published");
        assertEquals(count.deliveries.get(), counts.expected(), "what the server's subscriber counts call for");
        assertEquals(counts.expected(), counts.received());
        assertEquals(0, counts.lost());
        assertEquals(0, counts.duplicated());
        assertEquals(0, counts.unexpected());
        assertEquals(0, counts.failedPublishes());
        if (Scenario.WEBSOCKET.equals(transport)) {
            // One connection, one event loop: a publisher's messages arrive in order. Over long-polling a
            // delivery may ride on the reply of a publish while another rides on the held connect's, two
            // connections read by two event loops, so the tool counts (and reports) reordering instead.
            assertEquals(0, counts.outOfOrder());
        }
        assertTrue(result.latency().count() > 0 && result.latency().count() < counts.received(), "only measured deliveries are timed");
        assertEquals(result.rates().measuredDeliveries(), result.latency().count());
        // 100 batches 10 ms apart, in windows of 300 ms by the time each message was sent.
        assertEquals(4, result.windows().size(), result.windows().toString());
        assertEquals(result.rates().measuredDeliveries(), result.windows().stream().mapToLong(RunResult.Window::deliveries).sum());
        assertEquals(result.rates().measuredDeliveries(), result.windows().stream().mapToLong(RunResult.Window::expected).sum(),
                "every measured message's deliveries arrived");
        // A window may be empty: a pacer held up on a busy machine sends the batches it owes in the next one.
        assertTrue(result.windows().stream().allMatch(w -> w.lost() == 0 && w.max() >= w.p99()), result.windows().toString());
        assertNotNull(result.server().stats(), "the stats service answered");
        assertEquals(201L, ((Number) result.server().stats().get("sessions")).longValue(), "the clients and the stats client");
        assertNotNull(result.server().cpuSeconds());
        // The server is a JVM on this machine: its JIT compilers' part is read, and is a part.
        assertNotNull(result.server().jitCpuSeconds());
        assertTrue(result.server().jitCpuSeconds() >= 0 && result.server().jitCpuSeconds() <= result.server().cpuSeconds() + 0.011,
                result.server().toString());
        assertTrue(result.server().cpuMicrosPerDeliveryWithoutJit() <= result.server().cpuMicrosPerDelivery(), result.server().toString());
        assertNotNull(result.server().rssBytes());
        // The kernel's count of what the server sent: every delivery carries at least its 50
        // characters of chat text, and deflate takes no more than two thirds of words away.
        RunResult.Wire wire = result.server().wire();
        assertNotNull(wire, "ss read the server's connections");
        assertTrue(wire.bytesPerDelivery() > 15, wire.toString());
        assertTrue(wire.segmentsSent() > 0 && wire.segmentsPerDelivery() > 0, wire.toString());
        // The server's own count of its writes: a frame carries one delivery or more, and is flushed.
        RunResult.Writes writes = result.server().writes();
        assertNotNull(writes, "the stats service told the write counts");
        assertTrue(writes.flushes() > 0, writes.toString());
        if (Scenario.WEBSOCKET.equals(transport)) {
            assertTrue(writes.frames() > 0 && writes.framesPerDelivery() <= 1.1, writes.toString());
        } else {
            assertEquals(0, writes.frames(), "long-polling writes responses, not frames");
        }
        assertTrue(result.tool().cpuSeconds() > 0);
    }
}
