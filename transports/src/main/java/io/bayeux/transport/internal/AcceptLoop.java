package io.bayeux.transport.internal;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ThreadAwareExecutor;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * The I/O of the accept loop, with one addition: {@link #afterAccepts(EventExecutor)} runs a task
 * once the loop has accepted every connection that had reached the server when the task was
 * given. An event loop runs its tasks in batches between I/O passes, so a plain task may run
 * before a connection that is already queued in the kernel is accepted; this handler holds each
 * such task until the end of the next I/O pass that started after it was given. With the
 * listening socket read up to its backlog in one pass (see {@link BoundServer}), that pass
 * accepts every queued connection. One per server; its handler is confined to the accept loop
 * but for {@link #afterAccepts}, which any thread may call.
 */
final class AcceptLoop implements IoHandlerFactory {
    private static final Runnable WAKE_UP = () -> { };
    private final IoHandlerFactory io;
    /** Tasks waiting for the next I/O pass; added from any thread, taken on the accept loop. */
    private final Queue<Runnable> waiting = new ConcurrentLinkedQueue<>();

    AcceptLoop(IoHandlerFactory io) {
        this.io = io;
    }

    @Override
    public IoHandler newHandler(ThreadAwareExecutor executor) {
        return new Passes(io.newHandler(executor));
    }

    /**
     * An executor of tasks that run on {@code loop}, this factory's accept loop, after the next
     * I/O pass that starts once they were given; a task given when the loop is gone runs at once.
     */
    Executor afterAccepts(EventExecutor loop) {
        return task -> {
            waiting.add(task);
            try {
                // A task in its queue wakes the loop and keeps its next pass from blocking.
                loop.execute(WAKE_UP);
            } catch (RejectedExecutionException x) {
                if (waiting.remove(task)) {
                    task.run();
                }
            }
        };
    }

    /** A context that lets a pass take what is ready but not wait for more. */
    private record NonBlocking(IoHandlerContext context) implements IoHandlerContext {
        @Override
        public boolean canBlock() {
            return false;
        }

        @Override
        public long delayNanos(long currentTimeNanos) {
            return context.delayNanos(currentTimeNanos);
        }

        @Override
        public long deadlineNanos() {
            return context.deadlineNanos();
        }

        @Override
        public void reportActiveIoTime(long activeNanos) {
            context.reportActiveIoTime(activeNanos);
        }

        @Override
        public boolean shouldReportActiveIoTime() {
            return context.shouldReportActiveIoTime();
        }
    }

    /** The loop's I/O handler, running what waits for a pass after the pass. */
    private final class Passes implements IoHandler {
        private final IoHandler delegate;

        Passes(IoHandler delegate) {
            this.delegate = delegate;
        }

        @Override
        public void initialize() {
            delegate.initialize();
        }

        @Override
        public int run(IoHandlerContext context) {
            List<Runnable> due = null;
            for (Runnable task; (task = waiting.poll()) != null; ) {
                if (due == null) {
                    due = new ArrayList<>();
                }
                due.add(task);
            }
            if (due == null) {
                return delegate.run(context);
            }
            // A pass that has tasks waiting for it must not block until the next connection.
            int handled = delegate.run(new NonBlocking(context));
            due.forEach(Runnable::run);
            return handled;
        }

        @Override
        public void prepareToDestroy() {
            delegate.prepareToDestroy();
        }

        @Override
        public void destroy() {
            delegate.destroy();
            for (Runnable task; (task = waiting.poll()) != null; ) {
                task.run();
            }
        }

        @Override
        public IoRegistration register(IoHandle handle) throws Exception {
            return delegate.register(handle);
        }

        @Override
        public void wakeup() {
            delegate.wakeup();
        }

        @Override
        public boolean isCompatible(Class<? extends IoHandle> handleType) {
            return delegate.isCompatible(handleType);
        }
    }
}
