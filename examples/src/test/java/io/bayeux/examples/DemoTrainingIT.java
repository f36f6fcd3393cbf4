package io.bayeux.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The demo's AOT training run: every client, over either transport, gets every message of the room. */
class DemoTrainingIT {
    @Test
    @Timeout(120)
    void everyTrainingMessageReachesEveryClient() throws Exception {
        assertTrue(DemoTraining.train(), "the training run's messages all arrived within its wait");
    }
}
