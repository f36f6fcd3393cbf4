package io.bayeux.client;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.EventExecutor;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Where a client runs: the event-loop group it was given in
 * {@link ClientConfig#eventLoopGroup()}, or else a group of one thread of its own, and the one
 * loop of that group it picks for its connections, timers and dispatching. Only a group of its
 * own is shut down when the client is released.
 *
 * <p>Immutable and thread-safe.
 */
final class ClientLoops {
    /** How long a group of the client's own may take to stop, and {@link #awaitShutdown} waits for it. */
    static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(1);

    private final EventLoopGroup group;
    private final boolean own;
    private final EventLoop loop;

    /** @param given the group to run on, or null for one of the client's own */
    ClientLoops(EventLoopGroup given) {
        this.own = given == null;
        this.group = own ? new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory()) : given;
        this.loop = group.next();
    }

    /** The client's one event loop. */
    EventLoop loop() {
        return loop;
    }

    /** Whether the calling thread is one of the group's event loops, where the client must not block. */
    boolean inGroup() {
        for (EventExecutor executor : group) {
            if (executor.inEventLoop()) {
                return true;
            }
        }
        return false;
    }

    /** Runs {@code task} on the client's loop or, when that loop is gone, on this thread. */
    void executeOrRun(Runnable task) {
        try {
            loop.execute(task);
        } catch (RejectedExecutionException x) {
            task.run();
        }
    }

    /** Shuts down a group of the client's own; leaves a given one running. */
    void shutdown() {
        if (own) {
            group.shutdownGracefully(0, SHUTDOWN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** Waits, at most {@link #SHUTDOWN_WAIT}, until a group of the client's own has stopped. */
    void awaitShutdown() throws InterruptedException {
        if (own) {
            group.terminationFuture().await(SHUTDOWN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }
}
