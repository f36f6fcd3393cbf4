package io.bayeux.transport;

import org.junit.jupiter.api.Test;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The server's threads are sized to the machine by default, and each default can be changed. */
class ThreadDefaultsTest {
    private static final int CORES = Runtime.getRuntime().availableProcessors();

    @Test
    void byDefaultThereIsOneEventLoopPerCoreAndOneExecutorThreadPerCoreAtLeastTwo() {
        ServerSettings settings = NettyBayeuxServer.builder().settings();
        assertEquals(CORES, ServerSettings.defaultIoThreads());
        assertEquals(Math.max(2, CORES), ServerSettings.defaultExecutorThreads());
        assertEquals(CORES, settings.ioThreads());
        assertEquals(Math.max(2, CORES), settings.executorThreads());
    }

    @Test
    void zeroMeansTheDefaultAndOtherCountsAreKept() {
        NettyBayeuxServer.Builder builder = NettyBayeuxServer.builder().ioThreads(0).executorThreads(0);
        assertEquals(CORES, builder.settings().ioThreads());
        assertEquals(Math.max(2, CORES), builder.settings().executorThreads());
        builder.ioThreads(7).executorThreads(5);
        assertEquals(7, builder.settings().ioThreads());
        assertEquals(5, builder.settings().executorThreads());
    }

    @Test
    void negativeCountsAreRejectedWithTheValue() {
        IllegalArgumentException io = assertThrows(IllegalArgumentException.class, () -> NettyBayeuxServer.builder().ioThreads(-1));
        assertTrue(io.getMessage().contains("-1"), io.getMessage());
        IllegalArgumentException app = assertThrows(IllegalArgumentException.class, () -> NettyBayeuxServer.builder().executorThreads(-2));
        assertTrue(app.getMessage().contains("-2"), app.getMessage());
    }

    @Test
    void theDefaultExecutorIsABoundedPoolOfTheDefaultSize() {
        NettyBayeuxServer server = NettyBayeuxServer.builder().port(0).build();
        try {
            ThreadPoolExecutor pool = assertInstanceOf(ThreadPoolExecutor.class, server.executor());
            assertEquals(Math.max(2, CORES), pool.getCorePoolSize());
            assertEquals(Math.max(2, CORES), pool.getMaximumPoolSize());
            assertEquals(ServerSettings.DEFAULT_EXECUTOR_QUEUE, pool.getQueue().remainingCapacity());
        } finally {
            server.stop();
        }
    }

    @Test
    void executorThreadsSizesTheDefaultPool() {
        NettyBayeuxServer server = NettyBayeuxServer.builder().port(0).executorThreads(3).build();
        try {
            ThreadPoolExecutor pool = assertInstanceOf(ThreadPoolExecutor.class, server.executor());
            assertEquals(3, pool.getCorePoolSize());
            assertEquals(3, pool.getMaximumPoolSize());
        } finally {
            server.stop();
        }
    }

    @Test
    void virtualThreadsOrAnOwnExecutorReplaceThePool() throws Exception {
        NettyBayeuxServer virtual = NettyBayeuxServer.builder().port(0).virtualThreads().build();
        try {
            assertFalse(virtual.executor() instanceof ThreadPoolExecutor);
            assertTrue(virtual.executor().submit(() -> Thread.currentThread().isVirtual()).get(30, TimeUnit.SECONDS));
        } finally {
            virtual.stop();
        }
        ExecutorService own = Executors.newSingleThreadExecutor();
        try {
            NettyBayeuxServer server = NettyBayeuxServer.builder().port(0).executor(own).build();
            assertSame(own, server.executor());
            server.stop();
            assertFalse(own.isShutdown(), "the caller's executor is the caller's to shut down");
        } finally {
            own.shutdownNow();
        }
    }
}
