package io.bayeux.server.internal;

import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.BayeuxServerConfig;
import io.bayeux.server.NonBlocking;
import io.bayeux.server.Scheduler;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * A batch whose replies wait for a held {@code /meta/connect}: completed exactly once, by the
 * hold timing out, a message being queued, another connect arriving, the session going away,
 * or cancelled when the request goes away.
 */
final class PendingBatch implements Scheduler.Cancellable, Runnable {
    private static final VarHandle DONE;
    private static final VarHandle EXCHANGES;
    private static final VarHandle GATHERING;
    /** The compact form of a held connect that had no {@code id}. */
    private static final Object NO_ID = new Object();
    /** The compact form of a held connect whose {@code id} was a decimal int as a String (most clients count): kept in intId. */
    private static final Object INT_ID = new Object();

    static {
        try {
            DONE = MethodHandles.lookup().findVarHandle(PendingBatch.class, "done", boolean.class);
            EXCHANGES = MethodHandles.lookup().findVarHandle(PendingBatch.class, "exchanges", Object.class);
            GATHERING = MethodHandles.lookup().findVarHandle(PendingBatch.class, "gathering", boolean.class);
        } catch (ReflectiveOperationException x) {
            throw new ExceptionInInitializerError(x);
        }
    }

    final ConnectionImpl connection;
    final ServerSessionImpl session;
    /**
     * The batch's exchanges (a {@code List<Exchange>}), or, for a connect held alone whose request
     * and reply are what {@link CompactConnect#rebuildConnect} makes again, only its {@code id}
     * (or {@link #NO_ID}): an idle session's held connect keeps no request and reply maps. Made
     * into a list once, through EXCHANGES, when first asked for ({@link #exchanges()}).
     */
    private volatile Object exchanges;
    final Consumer<List<ServerMessage>> responder;
    /** The browser's hold count this batch took, or null. */
    final BrowserHolds.Count browserHold;
    /** Whether the connect's reply waits empty, its fields written again when the batch completes (see ConnectionImpl). */
    final boolean replyDeferred;
    /** The id of a compact connect kept as {@link #INT_ID}: a number instead of a String (and its bytes). */
    private final int intId;
    /** Whether the batch was completed or cancelled; set once, through DONE. */
    private volatile boolean done;
    /** The hold's timer: the endpoint's {@link Future}, or the server scheduler's {@link Scheduler.Cancellable}. */
    private volatile Object timer;
    /** Whether a timer answers the batch at the end of its session's gathering time; set once, through GATHERING. */
    private volatile boolean gathering;
    /** Whether the hold ran to its timeout; written by the timer that completes the batch, before it does. */
    private volatile boolean timedOut;

    PendingBatch(ConnectionImpl connection, ServerSessionImpl session, List<Exchange> exchanges, Consumer<List<ServerMessage>> responder,
                 BrowserHolds.Count browserHold, boolean replyDeferred) {
        this(connection, session, exchanges, 0, responder, browserHold, replyDeferred);
    }

    private PendingBatch(ConnectionImpl connection, ServerSessionImpl session, Object exchanges, int intId,
                         Consumer<List<ServerMessage>> responder, BrowserHolds.Count browserHold, boolean replyDeferred) {
        this.connection = connection;
        this.session = session;
        this.exchanges = exchanges;
        this.intId = intId;
        this.responder = responder;
        this.browserHold = browserHold;
        this.replyDeferred = replyDeferred;
    }

    /**
     * A connect held alone, kept as its {@code id} (a String or Number, or null when it had none):
     * its request and reply are {@linkplain CompactConnect#rebuildConnect made again} when asked for.
     */
    static PendingBatch compact(ConnectionImpl connection, ServerSessionImpl session, Object id,
                                Consumer<List<ServerMessage>> responder, BrowserHolds.Count browserHold) {
        int number = id instanceof String text ? decimal(text) : -1;
        if (number >= 0) {
            return new PendingBatch(connection, session, INT_ID, number, responder, browserHold, true);
        }
        return new PendingBatch(connection, session, id == null ? NO_ID : id, 0, responder, browserHold, true);
    }

    /** The int {@code text} is the decimal form of (no sign, no leading zero), or -1. */
    static int decimal(String text) {
        int length = text.length();
        if (length == 0 || length > 9 || (length > 1 && text.charAt(0) == '0')) {
            return -1;
        }
        int value = 0;
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    /** The batch's exchanges, the held connect last; a compact one is made again, once, by whoever asks first. */
    @SuppressWarnings("unchecked")
    List<Exchange> exchanges() {
        Object current = exchanges;
        if (current instanceof List<?> list) {
            return (List<Exchange>) list;
        }
        Object id = current == NO_ID ? null : current == INT_ID ? Integer.toString(intId) : current;
        List<Exchange> made = List.of(CompactConnect.rebuildConnect(connection, session, id));
        Object witness = EXCHANGES.compareAndExchange(this, current, made);
        return witness == current ? made : (List<Exchange>) witness;
    }

    /** @param timer a {@link Future} or a {@link Scheduler.Cancellable} (taken as they come: no wrapper per hold) */
    void timer(Object timer) {
        this.timer = timer;
        if (done) {
            cancel(timer);
        }
    }

    private static void cancel(Object timer) {
        if (timer instanceof Future<?> future) {
            future.cancel(false);
        } else if (timer instanceof Scheduler.Cancellable cancellable) {
            cancellable.cancel();
        }
    }

    /** @return true for the one caller that gets to complete this batch */
    boolean markDone() {
        if (!DONE.compareAndSet(this, false, true)) {
            return false;
        }
        Object t = timer;
        if (t != null) {
            cancel(t);
        }
        return true;
    }

    boolean isDone() {
        return done;
    }

    /**
     * The hold's timer on the endpoint's event loop fired: the batch completes there, or on the
     * executor when application code takes part (see {@link NonBlocking}). (The batch is its own
     * timer task: a held connect makes no object more for it.)
     */
    @Override
    public void run() {
        connection.server().completeFromLoop(session, this::timedOut);
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
        List<Exchange> all = exchanges();
        return all.get(all.size() - 1).message;
    }

    /**
     * Answers the batch after {@code delayMillis}, with what is queued by then (see
     * {@link BayeuxServerConfig#connectGather()}), or up to {@link BayeuxServerImpl#connectGatherSlackMillis()}
     * later; only the first call sets a timer.
     */
    void resumeAfter(long delayMillis) {
        if (done || !GATHERING.compareAndSet(this, false, true)) {
            return;
        }
        // On the loop, as the hold's timer: the reply is made there, or handed to the executor.
        // A little late maybe, with the other replies of the loop due about then: one wake-up.
        BayeuxServerImpl server = connection.server();
        if (!connection.endpoint().scheduleGrouped(() -> server.completeFromLoop(session, this::resume), delayMillis, server.connectGatherSlackMillis())) {
            server.scheduleWork(this::resume, delayMillis);
        }
    }

    /** Completes the batch: its replies go out with what is queued. */
    void resume() {
        if (markDone()) {
            connection.completeHeld(this);
        }
    }

    /**
     * Completes the batch as {@link #resume()} does, after {@code prepare} saw its exchanges (to
     * write into their replies), unless another caller completes or cancels it.
     *
     * @return whether this call completed it
     */
    boolean resume(Consumer<List<Exchange>> prepare) {
        if (!markDone()) {
            return false;
        }
        prepare.accept(exchanges());
        connection.completeHeld(this);
        return true;
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
