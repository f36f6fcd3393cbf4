package io.bayeux.server.internal;

import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.api.server.ServerSession.DeQueueListener;
import io.bayeux.api.server.ServerSession.QueueMaxedListener;
import io.bayeux.server.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * The messages waiting to go out to one session, with its bound, its lazy timer and the
 * listeners that shape it. Every method but the listener registration must be called with
 * the session's lock held: {@link DeQueueListener}s and {@link QueueMaxedListener}s run under
 * it, as documented on them.
 */
final class SessionQueue {
    private static final Logger LOG = LoggerFactory.getLogger(SessionQueue.class);

    private final ServerSessionImpl session;
    // Copy-on-write, written under this object's monitor (see CopyOnWrite): nothing until the first one.
    private volatile List<DeQueueListener> deQueueListeners = List.of();
    private volatile List<QueueMaxedListener> queueMaxedListeners = List.of();
    private volatile List<ServerSession.QueueListener> queueListeners = List.of();
    /** Made with the first message (an idle session never has one), then kept. */
    private ArrayDeque<ServerMessage> queue;
    /** Whether a queued message is due now: it is not lazy, or the lazy timeout expired. */
    private boolean due;
    private Scheduler.Cancellable lazyTimer;
    private long lazyDeadline;
    /** Numbers the lazy timers: one that fires after it was replaced or cancelled is ignored. */
    private long lazyGeneration;

    SessionQueue(ServerSessionImpl session) {
        this.session = session;
    }

    /** @return whether the listener is one of the queue's kinds */
    synchronized boolean addListener(ServerSession.ServerSessionListener listener) {
        boolean known = false;
        if (listener instanceof DeQueueListener l) {
            deQueueListeners = CopyOnWrite.plus(deQueueListeners, l);
            known = true;
        }
        if (listener instanceof QueueMaxedListener l) {
            queueMaxedListeners = CopyOnWrite.plus(queueMaxedListeners, l);
            known = true;
        }
        if (listener instanceof ServerSession.QueueListener l) {
            queueListeners = CopyOnWrite.plus(queueListeners, l);
            known = true;
        }
        return known;
    }

    synchronized void removeListener(ServerSession.ServerSessionListener listener) {
        deQueueListeners = CopyOnWrite.minus(deQueueListeners, listener);
        queueMaxedListeners = CopyOnWrite.minus(queueMaxedListeners, listener);
        queueListeners = CopyOnWrite.minus(queueListeners, listener);
    }

    /** Whether application code shapes what is taken: then it is never taken on an event loop. */
    boolean hasDeQueueListeners() {
        return !deQueueListeners.isEmpty();
    }

    private ArrayDeque<ServerMessage> queue() {
        ArrayDeque<ServerMessage> made = queue;
        if (made == null) {
            made = new ArrayDeque<>(4);
            queue = made;
        }
        return made;
    }

    int size() {
        return queue == null ? 0 : queue.size();
    }

    boolean isEmpty() {
        return queue == null || queue.isEmpty();
    }

    /** Whether something queued should go out now. */
    boolean isDue() {
        return due && !isEmpty();
    }

    /** Makes what waits due now, lazy or not. */
    void makeDue() {
        due |= !isEmpty();
    }

    /**
     * Adds a message; past {@code maxQueue} the {@link QueueMaxedListener}s decide (with none,
     * the message is dropped).
     *
     * @return whether it was added
     */
    boolean offer(ServerSession sender, ServerMessage message, boolean lazy, int maxQueue) {
        if (maxQueue > 0 && size() >= maxQueue && !queueMaxed(sender, message)) {
            return false;
        }
        queue().add(message);
        due |= !lazy;
        List<ServerSession.QueueListener> listeners = queueListeners;
        for (int i = 0; i < listeners.size(); i++) {
            ServerSession.QueueListener listener = listeners.get(i);
            try {
                listener.queued(sender, message);
            } catch (RuntimeException x) {
                LOG.warn("Queue listener {} of {} failed", listener, session, x);
            }
        }
        return true;
    }

    private boolean queueMaxed(ServerSession sender, ServerMessage message) {
        if (queueMaxedListeners.isEmpty()) {
            LOG.debug("Queue of {} is full ({}), dropping {}", session, size(), message);
            return false;
        }
        boolean add = true;
        for (QueueMaxedListener listener : queueMaxedListeners) {
            try {
                add &= listener.queueMaxed(session, queue(), sender, message);
            } catch (RuntimeException x) {
                // A failing listener must not let the queue grow past its bound.
                LOG.warn("Queue maxed listener {} of {} failed, dropping the message", listener, session, x);
                add = false;
            }
        }
        return add;
    }

    /**
     * Arms the lazy timer to fire {@code timeout} ms from now, unless it fires earlier already;
     * {@code expired} is then run on the server's executor with the timer's generation.
     */
    void scheduleLazy(BayeuxServerImpl server, long timeout, java.util.function.LongConsumer expired) {
        long deadline = server.scheduler().now() + timeout;
        if (lazyTimer != null && lazyDeadline <= deadline) {
            return;
        }
        if (lazyTimer != null) {
            lazyTimer.cancel();
        }
        lazyDeadline = deadline;
        long generation = ++lazyGeneration;
        lazyTimer = server.scheduleWork(() -> expired.accept(generation), timeout);
    }

    /**
     * The lazy timer {@code generation} fired: what waits is due from now on, so a later
     * connect is not held.
     *
     * @return false when that timer had been replaced or cancelled meanwhile
     */
    boolean lazyExpired(long generation) {
        if (lazyTimer == null || generation != lazyGeneration) {
            return false;
        }
        lazyTimer = null;
        due |= !isEmpty();
        return true;
    }

    /**
     * Takes queued messages, after the {@link DeQueueListener}s had their say: from the head,
     * as many as fit in {@code maxBytes} of JSON by {@code size}, at least one; every one when
     * listeners shaped the queue (they decide what goes together, acknowledged delivery
     * numbering the whole batch). What stays is due at once.
     *
     * @param replies the replies the messages go out with, possibly none
     */
    List<ServerMessage> take(List<ServerMessage.Mutable> replies, int maxBytes, ToIntFunction<ServerMessage> size) {
        if (!deQueueListeners.isEmpty() || size() <= 1) {
            return take(replies);
        }
        ArrayDeque<ServerMessage> queue = this.queue;
        Iterator<ServerMessage> it = queue.iterator();
        int bytes = size.applyAsInt(it.next());
        int count = 1;
        while (it.hasNext()) {
            // In one array, each further message adds its own array's length less one: its brackets give way to a comma.
            bytes += size.applyAsInt(it.next()) - 1;
            if (bytes > maxBytes) {
                break;
            }
            count++;
        }
        if (count == queue.size()) {
            return take(replies);
        }
        List<ServerMessage> result = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            result.add(queue.pollFirst());
        }
        due = true;
        return result;
    }

    /**
     * Takes every queued message, after the {@link DeQueueListener}s had their say.
     *
     * @param replies the replies the messages go out with, possibly none
     */
    List<ServerMessage> take(List<ServerMessage.Mutable> replies) {
        List<DeQueueListener> listeners = deQueueListeners;
        for (int i = 0; i < listeners.size(); i++) {
            DeQueueListener listener = listeners.get(i);
            try {
                listener.deQueue(session, queue(), replies);
            } catch (RuntimeException x) {
                LOG.warn("DeQueue listener {} of {} failed", listener, session, x);
            }
        }
        if (isEmpty()) {
            return List.of();
        }
        // Most pushes carry one message: no copy of the deque for them.
        List<ServerMessage> result = queue.size() == 1 ? List.of(queue.peekFirst()) : new ArrayList<>(queue);
        clear();
        return result;
    }

    /** Puts messages that could not be written back at the front, due at once. */
    void requeue(List<ServerMessage> batch) {
        ArrayDeque<ServerMessage> queue = queue();
        for (int i = batch.size() - 1; i >= 0; i--) {
            queue.addFirst(batch.get(i));
        }
        due = !queue.isEmpty();
    }

    void clear() {
        if (queue != null) {
            queue.clear();
        }
        due = false;
        if (lazyTimer != null) {
            lazyTimer.cancel();
            lazyTimer = null;
        }
    }
}
