package io.bayeux.server.internal;

import io.bayeux.api.Promise;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.spi.Endpoint;
import io.bayeux.server.spi.ServerObserver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Pushes a session's queue to its endpoint, one batch at a time: the next batch is taken
 * only when the previous write completed, so a client that stops reading stops the flushing
 * (its messages wait in the bounded session queue) instead of piling bytes up in the network
 * buffers. Never re-entered and never run concurrently with itself: a {@link #flush()} that
 * arrives while a flush is running is remembered and served by the running one.
 */
final class Flusher {
    private static final Logger LOG = LoggerFactory.getLogger(Flusher.class);
    private static final int IDLE = 0;
    private static final int FLUSHING = 1;
    private static final int PENDING = 2;

    private final SessionOutbox outbox;
    private final AtomicInteger state = new AtomicInteger(IDLE);

    Flusher(SessionOutbox outbox) {
        this.outbox = outbox;
    }

    /** Sends what is queued, now or as soon as the write in progress completes. */
    void flush() {
        if (state.getAndUpdate(s -> s == IDLE ? FLUSHING : PENDING) == IDLE) {
            iterate();
        }
    }

    private void iterate() {
        while (true) {
            state.set(FLUSHING);
            Endpoint endpoint = outbox.pushEndpoint();
            // An event loop's endpoint that is not writable brings the session back once it is.
            boolean ready = endpoint != null && (endpoint.eventLoop() == null || endpoint.isWritable());
            List<ServerMessage> batch = ready ? outbox.takeQueue(List.of()) : List.of();
            if (batch.isEmpty()) {
                if (state.compareAndSet(FLUSHING, IDLE)) {
                    return;
                }
                continue;
            }
            Write write = new Write(endpoint, batch);
            if (endpoint.eventLoop() != null) {
                writeOnLoop(endpoint, write);
            } else {
                write.reportDelivered();
                try {
                    endpoint.write(batch, write);
                } catch (RuntimeException x) {
                    write.fail(x);
                }
            }
            if (!write.goAsync()) {
                continue;
            }
            return;
        }
    }

    /**
     * Writes and flushes on the endpoint's event loop, then goes on from the executor: this
     * flusher serves sessions whose {@code DeQueueListener}s must not run on an event loop.
     * Writability, not the completion, paces it.
     */
    private void writeOnLoop(Endpoint endpoint, Write write) {
        Runnable onLoop = () -> {
            try {
                endpoint.write(write.batch, new Promise<>() {
                    @Override
                    public void succeed(Void result) {
                    }

                    @Override
                    public void fail(Throwable failure) {
                        write.failOnly(failure);
                    }
                });
                write.reportDelivered();
                endpoint.flush();
            } catch (RuntimeException x) {
                write.failOnly(x);
            }
            outbox.session().server().runTimerWork(() -> write.succeed(null));
        };
        try {
            endpoint.eventLoop().execute(onLoop);
        } catch (RejectedExecutionException x) {
            write.fail(x);
        }
    }

    /** Completion of one write; decides whether the loop goes on in place or from the callback. */
    private final class Write implements Promise<Void> {
        private static final int WAITING = 0;
        private static final int DONE_IN_PLACE = 1;
        private static final int ASYNC = 2;
        private final AtomicInteger mode = new AtomicInteger(WAITING);
        private final Endpoint endpoint;
        private final List<ServerMessage> batch;

        Write(Endpoint endpoint, List<ServerMessage> batch) {
            this.endpoint = endpoint;
            this.batch = batch;
        }

        @Override
        public void succeed(Void result) {
            completed();
        }

        /** Tells the server's observer, if any, that the batch is flushed now. */
        void reportDelivered() {
            ServerObserver observer = outbox.session().server().observer();
            if (observer != null) {
                DeliveryTally.report(observer, outbox.session().getTransportName(), batch);
            }
        }

        /** The write failed after it was handed over: its batch goes back, the completion comes apart. */
        void failOnly(Throwable failure) {
            LOG.debug("Write of {} messages to {} for {} failed", batch.size(), endpoint, outbox.session(), failure);
            outbox.pushFailed(endpoint, batch);
        }

        @Override
        public void fail(Throwable failure) {
            LOG.debug("Write of {} messages to {} for {} failed", batch.size(), endpoint, outbox.session(), failure);
            outbox.pushFailed(endpoint, batch);
            completed();
        }

        private void completed() {
            if (!mode.compareAndSet(WAITING, DONE_IN_PLACE)) {
                iterate();
            }
        }

        /** @return true when the write is still in progress: the callback will go on. */
        boolean goAsync() {
            return mode.compareAndSet(WAITING, ASYNC);
        }
    }

    @Override
    public String toString() {
        return "Flusher[" + switch (state.get()) {
            case IDLE -> "idle";
            case FLUSHING -> "flushing";
            default -> "pending";
        } + "]";
    }
}
