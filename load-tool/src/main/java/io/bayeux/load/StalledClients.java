package io.bayeux.load;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * The {@code --stalled-clients} of a run: each joins {@code --rooms-per-client} rooms chosen at
 * random and never reads, so that the server's queues for them fill up. Not thread-safe: the
 * run's thread uses it.
 */
final class StalledClients {
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(10);

    private final List<StalledClient> stalled = new ArrayList<>();
    /** How many joined (they count as connected clients), including those closed since. */
    private int joined;

    /**
     * Joins the scenario's stalled clients, spread over its URLs after the {@code readers}
     * ordinary clients; throws {@link BenchmarkException} when one cannot join.
     */
    void join(Scenario scenario, int readers) {
        Random random = new Random(scenario.seed() + 3);
        int[] all = new int[scenario.rooms()];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        for (int c = 0; c < scenario.stalledClients(); c++) {
            for (int i = 0; i < scenario.roomsPerClient(); i++) {
                int j = i + random.nextInt(all.length - i);
                int t = all[i];
                all[i] = all[j];
                all[j] = t;
            }
            URI url = scenario.urls().get((readers + c) % scenario.urls().size());
            try {
                stalled.add(StalledClient.join(url, Arrays.copyOf(all, scenario.roomsPerClient()), JOIN_TIMEOUT));
                joined++;
            } catch (IOException x) {
                throw new BenchmarkException("Stalled client " + c + " could not join: " + x.getMessage());
            }
        }
    }

    /** How many stalled clients are open now. */
    int size() {
        return stalled.size();
    }

    boolean isEmpty() {
        return stalled.isEmpty();
    }

    /** How many joined. */
    int joined() {
        return joined;
    }

    /** Releases the stalled clients: their sockets are closed, so that the server lets their sessions go. */
    void close() {
        stalled.forEach(StalledClient::close);
        stalled.clear();
    }
}
