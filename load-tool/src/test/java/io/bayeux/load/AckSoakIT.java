package io.bayeux.load;

import io.bayeux.transport.NettyBayeuxServer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A short soak with acknowledged delivery while connections are cut, on an event-loop group of
 * two threads, against the benchmark server: nothing lost, nothing twice.
 */
class AckSoakIT {
    @RegisterExtension
    final BenchmarkServerFixture servers = new BenchmarkServerFixture();

    /** 50 clients in 20 rooms, 5 each, batches of 5 every 10 ms for 10 s, a connection cut every second. */
    private static Scenario soak(URI url, String transport) {
        return new Scenario(List.of(url), transport, 50, 20, 5, 7, 2000, 5, Duration.ofMillis(10), 1, 5, 50,
                true, false, Duration.ofSeconds(1), true, Duration.ofSeconds(10), Duration.ofSeconds(1),
                Duration.ofSeconds(30), Duration.ofSeconds(60));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {Scenario.WEBSOCKET, Scenario.LONG_POLLING})
    @Timeout(180)
    void anAcknowledgedSoakWithCutConnectionsLosesAndDuplicatesNothing(String transport) throws Exception {
        NettyBayeuxServer server = servers.start(bayeux -> {
        });

        RunResult result = new ChatBenchmark(soak(server.uri(), transport), "ack soak", null, 2, TestScenarios.QUIET, false).run();

        Counts counts = result.counts();
        assertTrue(result.connect().cuts() >= 5, () -> "connections were cut: " + result.connect());
        assertEquals(50, result.connect().connected(), "every client is back");
        assertTrue(counts.expected() > 10_000, () -> "enough traffic: " + counts);
        assertEquals(0, counts.lost(), () -> "lost: " + counts);
        assertEquals(0, counts.duplicated(), () -> "duplicated: " + counts);
        assertEquals(0, counts.unexpected(), () -> "unexpected: " + counts);
        assertEquals(counts.expected(), counts.distinct(), () -> "every expected delivery arrived: " + counts);
    }
}
