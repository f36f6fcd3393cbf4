package io.bayeux.transport.http;

import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.RejectedExecutionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What one turn of an event loop reads goes to the executor as one task (and one helper), started
 * in arrival order; a long turn is cut into several tasks; a request that blocks does not hold up
 * the rest of its batch; a refusing executor has every request answered on the loop.
 */
class LoopDispatcherTest {
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final EventLoop loop = channel.eventLoop();
    private final List<Runnable> submitted = new ArrayList<>();
    private final List<String> events = new ArrayList<>();

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    @Test
    void theRequestsOfOneTurnGoToTheExecutorAsOneTaskInTheOrderTheyCame() {
        LoopDispatcher dispatcher = new LoopDispatcher.Registry(submitted::add).of(loop);
        for (int i = 0; i < 5; i++) {
            dispatcher.dispatch(task("r" + i));
        }
        assertTrue(submitted.isEmpty(), "nothing goes before the turn ends");
        channel.runPendingTasks();
        assertEquals(1, submitted.size());
        submitted.get(0).run();
        assertEquals(List.of("r0", "r1", "r2", "r3", "r4"), events);
        assertEquals(2, submitted.size(), "the batch asked for one helper, and only one");
        submitted.get(1).run();
        assertEquals(5, events.size(), "the helper finds nothing left to do");

        dispatcher.dispatch(task("next"));
        channel.runPendingTasks();
        assertEquals(3, submitted.size(), "the next turn makes a task of its own");
        submitted.get(2).run();
        assertEquals(3, submitted.size(), "a single request asks for no helper");
    }

    @Test
    void aLongTurnIsCutIntoSeveralTasks() {
        LoopDispatcher dispatcher = new LoopDispatcher.Registry(submitted::add).of(loop);
        int count = LoopDispatcher.BATCH_LIMIT * 2 + 3;
        for (int i = 0; i < count; i++) {
            dispatcher.dispatch(task("r" + i));
        }
        channel.runPendingTasks();
        assertEquals(3, submitted.size());
        List.copyOf(submitted).forEach(Runnable::run);
        assertEquals(count, events.size());
        assertEquals("r0", events.get(0));
        assertEquals("r" + (count - 1), events.get(count - 1));
    }

    @Test
    void aRequestThatThrowsDoesNotStopTheOthersOfItsTask() {
        LoopDispatcher dispatcher = new LoopDispatcher.Registry(submitted::add).of(loop);
        dispatcher.dispatch(task("a"));
        dispatcher.dispatch(new LoopDispatcher.Task() {
            @Override
            public void run() {
                throw new IllegalStateException("boom");
            }

            @Override
            public void rejected() {
            }
        });
        dispatcher.dispatch(task("b"));
        channel.runPendingTasks();
        submitted.get(0).run();
        assertEquals(List.of("a", "b"), events);
    }

    @Test
    void aRequestThatBlocksDoesNotHoldUpTheRestOfItsBatch() throws Exception {
        ExecutorService executor = Executors.newFixedThreadPool(2);
        try {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch others = new CountDownLatch(3);
            LoopDispatcher dispatcher = new LoopDispatcher.Registry(executor).of(loop);
            dispatcher.dispatch(new LoopDispatcher.Task() {
                @Override
                public void run() {
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException x) {
                        Thread.currentThread().interrupt();
                    }
                }

                @Override
                public void rejected() {
                }
            });
            for (int i = 0; i < 3; i++) {
                dispatcher.dispatch(new LoopDispatcher.Task() {
                    @Override
                    public void run() {
                        others.countDown();
                    }

                    @Override
                    public void rejected() {
                    }
                });
            }
            channel.runPendingTasks();
            assertTrue(others.await(5, TimeUnit.SECONDS), "the rest of the batch ran while its first request blocked");
            release.countDown();
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void whenTheExecutorRefusesEveryRequestOfTheTurnIsToldSo() {
        Executor refusing = task -> {
            throw new RejectedExecutionException("full");
        };
        LoopDispatcher dispatcher = new LoopDispatcher.Registry(refusing).of(loop);
        dispatcher.dispatch(task("a"));
        dispatcher.dispatch(task("b"));
        channel.runPendingTasks();
        assertEquals(List.of("rejected a", "rejected b"), events);
    }

    private LoopDispatcher.Task task(String name) {
        return new LoopDispatcher.Task() {
            @Override
            public void run() {
                events.add(name);
            }

            @Override
            public void rejected() {
                events.add("rejected " + name);
            }
        };
    }
}
