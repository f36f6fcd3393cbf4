package io.bayeux.load;

import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.server.BayeuxServerConfig;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code bayeux-load server}'s options that are checked before the server starts. */
class ServerCommandTest {
    @Test
    void aNegativeConnectGatherIsRefusedWithItsOptionsName() {
        assertRefused("--connect-gather must be 0 or more (ms): -5", "server", "--port", "0", "--connect-gather", "-5");
    }

    @Test
    void roomsHaveNoHistoryAndSessionsTheServersMaxIntervalByDefault() {
        BenchmarkServer.Settings settings = parse().settings();
        assertNull(settings.history());
        assertEquals(BayeuxServerConfig.DEFAULT_MAX_INTERVAL, settings.maxInterval());
    }

    @Test
    void historySizeGivesEveryRoomThatHistoryKeptForTheTtl() {
        BenchmarkServer.Settings settings = parse("--history-size", "100", "--history-ttl", "30s", "--max-interval", "1500").settings();
        assertEquals(HistoryPolicy.of(100, Duration.ofSeconds(30)), settings.history());
        assertEquals(Duration.ofMillis(1500), settings.maxInterval());
        assertEquals(HistoryPolicy.of(5, BenchmarkServer.DEFAULT_HISTORY_TTL), parse("--history-size", "5").settings().history());
    }

    @Test
    void badHistoryAndMaxIntervalValuesAreRefusedWithTheirOptionsNames() {
        assertRefused("--history-size must be 0 or more: -1", "server", "--port", "0", "--history-size", "-1");
        assertRefused("--history-ttl: not a duration", "server", "--port", "0", "--history-size", "10", "--history-ttl", "soon");
        assertRefused("--max-interval must be positive (ms): 0", "server", "--port", "0", "--max-interval", "0");
    }

    private static ServerCommand parse(String... args) {
        ServerCommand command = new ServerCommand();
        new CommandLine(command).parseArgs(args);
        return command;
    }

    private static void assertRefused(String message, String... args) {
        CommandLine line = LoadTool.commandLine();
        StringWriter err = new StringWriter();
        line.setErr(new PrintWriter(err, true));
        assertEquals(2, line.execute(args));
        assertTrue(err.toString().contains(message), err.toString());
    }
}
