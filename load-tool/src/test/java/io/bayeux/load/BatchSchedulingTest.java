package io.bayeux.load;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Threads of the clients switched to {@code SCHED_BATCH} as they start, as the kernel tells their policy. */
class BatchSchedulingTest {
    private static int policyOfAThreadFrom(ThreadFactory threads) throws Exception {
        CompletableFuture<Integer> policy = new CompletableFuture<>();
        Thread thread = threads.newThread(() -> policy.complete(BatchScheduling.policyOfThisThread()));
        thread.start();
        thread.join(TimeUnit.SECONDS.toMillis(30));
        return policy.get(0, TimeUnit.SECONDS);
    }

    @Test
    void aThreadOfABatchFactoryRunsInSchedBatchAndOneOfANormalFactoryDoesNot() throws Exception {
        List<String> failures = new CopyOnWriteArrayList<>();

        assertEquals(BatchScheduling.SCHED_BATCH, policyOfAThreadFrom(BatchScheduling.threads("batch", true, failures::add)),
                "switched before its task ran");
        assertEquals(List.of(), failures, "and nothing failed");
        assertEquals(BatchScheduling.SCHED_OTHER, policyOfAThreadFrom(BatchScheduling.threads("normal", false, failures::add)),
                "a thread of the normal factory keeps the normal policy, whatever its creator's");
    }

    @Test
    void onlyTheThreadThatAsksIsSwitched() throws Exception {
        int before = BatchScheduling.policyOfThisThread();
        CompletableFuture<String> failure = new CompletableFuture<>();
        CompletableFuture<Integer> policy = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            failure.complete(BatchScheduling.switchThisThread());
            policy.complete(BatchScheduling.policyOfThisThread());
        });
        thread.start();
        thread.join(TimeUnit.SECONDS.toMillis(30));

        assertEquals(null, failure.get(0, TimeUnit.SECONDS));
        assertEquals(BatchScheduling.SCHED_BATCH, policy.get(0, TimeUnit.SECONDS));
        assertEquals(before, BatchScheduling.policyOfThisThread(), "the thread that started it is as it was");
    }
}
