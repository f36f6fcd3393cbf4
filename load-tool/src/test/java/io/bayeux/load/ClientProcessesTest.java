package io.bayeux.load;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ClientProcessesTest {
    @Test
    void sharesNumberClientsModuloTheProcessesAndAddUpToTheTotal() {
        assertEquals(4, ClientProcesses.share(10, 0, 3), "clients 0, 3, 6, 9");
        assertEquals(3, ClientProcesses.share(10, 1, 3), "clients 1, 4, 7");
        assertEquals(3, ClientProcesses.share(10, 2, 3), "clients 2, 5, 8");
        assertEquals(0, ClientProcesses.share(1, 1, 2), "fewer clients than processes");
        for (int total = 0; total < 50; total++) {
            int sum = 0;
            for (int p = 0; p < 4; p++) {
                sum += ClientProcesses.share(total, p, 4);
            }
            assertEquals(total, sum, "shares of " + total);
        }
    }

    @Test
    void childrenScheduleTheirEventLoopsAsTheRunAsks() throws Exception {
        DensityRun.Settings batch = new DensityRun.Settings(URI.create("http://127.0.0.1:1/cometd"), null, List.of(10),
                DensityCommand.sourceAddresses(1), true, 100, 10, 50, 1, Duration.ZERO, Duration.ofSeconds(10), 1024,
                Duration.ofSeconds(60), 1, true, 0, 2, 1);
        DensityRun.Settings normal = new DensityRun.Settings(batch.url(), null, List.of(10), batch.sourceAddresses(), true, 100, 10, 50,
                1, Duration.ZERO, Duration.ofSeconds(10), 1024, Duration.ofSeconds(60), 1, false, 0, 2, 1);

        assertFalse(ClientProcesses.childArguments(batch).contains("--normal-scheduling"), "batch, as the child's default");
        assertTrue(ClientProcesses.childArguments(normal).contains("--normal-scheduling"));
    }

    @Test
    void sourceCountsOfAChildAreAddedByAddress() {
        Map<String, Integer> counts = new TreeMap<>(Map.of("127.0.0.2", 5));
        DensityClientsCommand.addSources("sources 127.0.0.2=3 127.0.0.3=4", counts);
        DensityClientsCommand.addSources("sources", counts);
        assertEquals(Map.of("127.0.0.2", 8, "127.0.0.3", 4), counts);
    }
}
