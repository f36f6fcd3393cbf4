package io.bayeux.load.cometd;

import io.bayeux.load.ChatBenchmark;
import io.bayeux.load.RunResult;
import io.bayeux.load.Scenario;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** The load tool against CometD 8's own server, over both transports: nothing lost, nothing duplicated. */
class CometDChatBenchmarkIT {
    @ParameterizedTest
    @ValueSource(strings = {Scenario.WEBSOCKET, Scenario.LONG_POLLING})
    @Timeout(120)
    void theChatBenchmarkRunsCleanAgainstCometD(String transport) throws Exception {
        try (CometDBenchmarkServer server = new CometDBenchmarkServer().start("127.0.0.1", 0, CometDBenchmarkServer.DEFAULT_MAX_QUEUE)) {
            Scenario scenario = new Scenario(List.of(server.uri()), transport, 100, 20, 5, 1, 2000, 5, Duration.ofMillis(10), 60, 5, 50,
                    true, false, Duration.ofSeconds(1), false, null, null, Duration.ofSeconds(30), Duration.ofSeconds(60));

            RunResult result = new ChatBenchmark(scenario, "cometd", ProcessHandle.current().pid(), 2,
                    new PrintStream(OutputStream.nullOutputStream()), false).run();

            assertEquals(100, result.connect().connected());
            assertEquals(65 * 5, result.counts().published());
            assertEquals(result.counts().expected(), result.counts().received());
            assertEquals(0, result.counts().lost());
            assertEquals(0, result.counts().duplicated());
            assertEquals(0, result.counts().failedPublishes());
            assertNotNull(result.server().stats(), "the stats service answered");
            assertEquals(101L, ((Number) result.server().stats().get("sessions")).longValue());
        }
    }
}
