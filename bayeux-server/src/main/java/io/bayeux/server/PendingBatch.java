package io.bayeux.server;

import io.bayeux.api.server.ServerMessage;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.function.Consumer;

/**
 * A batch whose replies wait for a held {@code /meta/connect}: completed exactly once, by the
 * hold timing out, a message being queued, another connect arriving, the session going away,
 * or cancelled when the request goes away.
 */
final class PendingBatch implements Scheduler.Cancellable, Runnable {
    private static final VarHandle DONE;

    static {
        try {
            DONE = MethodHandles.lookup().findVarHandle(PendingBatch.class, "done", boolean.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    final ConnectionImpl connection;
    final ServerSessionImpl session;
    final List<Exchange> exchanges;
    final Consumer<List<ServerMessage>> responder;
    /** The browser whose hold count this batch took, or null. */
    final String browserId;
    /** Whether the connect's reply waits empty, its fields written again when the batch completes (see ConnectionImpl). */
    final boolean replyDeferred;
    /** Whether the batch was completed or cancelled; set once, through DONE. */
    private volatile boolean done;
    private volatile Scheduler.Cancellable timer;
    /** Whether the hold ran to its timeout; written by the timer that completes the batch, before it does. */
    private volatile boolean timedOut;

    PendingBatch(ConnectionImpl connection, ServerSessionImpl session, List<Exchange> exchanges, Consumer<List<ServerMessage>> responder,
                 String browserId, boolean replyDeferred) {
        this.connection = connection;
        this.session = session;
        this.exchanges = exchanges;
        this.responder = responder;
        this.browserId = browserId;
        this.replyDeferred = replyDeferred;
    }

    void timer(Scheduler.Cancellable timer) {
        this.timer = timer;
        if (done) {
            timer.cancel();
        }
    }

    /** @return true for the one caller that gets to complete this batch */
    boolean markDone() {
        if (!DONE.compareAndSet(this, false, true)) {
            return false;
        }
        Scheduler.Cancellable t = timer;
        if (t != null) {
            t.cancel();
        }
        return true;
    }

    boolean isDone() {
        return done;
    }

    /**
     * The hold's timer on the endpoint's event loop fired: the batch completes on the executor.
     * (The batch is its own timer task: a held connect makes no object more for it.)
     */
    @Override
    public void run() {
        connection.server().runTimerWork(this::timedOut);
    }

    /** The hold expired: completes the batch. */
    void timedOut() {
        if (markDone()) {
            timedOut = true;
            connection.completeHeld(this);
        }
    }

    boolean wasTimedOut() {
        return timedOut;
    }

    /** The held {@code /meta/connect} (the last message of the batch). */
    ServerMessage connectMessage() {
        return exchanges.get(exchanges.size() - 1).message;
    }

    /** Completes the batch: its replies go out with what is queued. */
    void resume() {
        if (markDone()) {
            connection.completeHeld(this);
        }
    }

    /** Drops the batch without replying: the request or connection went away. */
    @Override
    public boolean cancel() {
        if (!markDone()) {
            return false;
        }
        connection.cancelled(this);
        return true;
    }

    @Override
    public String toString() {
        return "PendingBatch[" + session + ", done=" + done + "]";
    }
}
