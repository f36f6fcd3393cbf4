package io.bayeux.load;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The warm-up of {@code bayeux-load server --warm-up} and the AOT cache's training run, which is
 * its round: real clients over both transports get every message, and the warm-up keeps to its limit.
 */
class ServerWarmUpIT {
    @Test
    @Timeout(120)
    void aWarmUpWithNoTimeLeftRunsOneCleanRoundOfTheTrainingWorkload() throws Exception {
        ServerWarmUp.Result result = ServerWarmUp.run(Duration.ZERO);

        assertEquals(1, result.rounds(), result.line());
        assertTrue(result.clean(), "every message of the training workload arrived exactly once: " + result.line());
        assertTrue(result.line().startsWith("Warmed up in "), result.line());
    }
}
