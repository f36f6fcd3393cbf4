package io.bayeux.load;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
    void sourceCountsOfAChildAreAddedByAddress() {
        Map<String, Integer> counts = new TreeMap<>(Map.of("127.0.0.2", 5));
        DensityClientsCommand.addSources("sources 127.0.0.2=3 127.0.0.3=4", counts);
        DensityClientsCommand.addSources("sources", counts);
        assertEquals(Map.of("127.0.0.2", 8, "127.0.0.3", 4), counts);
    }
}
