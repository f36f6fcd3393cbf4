package io.bayeux.oort.object;

import org.slf4j.Logger;

import java.util.ArrayDeque;

/**
 * Tells listeners of changes in the order the changes were applied, one thread at a time, never
 * under the lock of the state that changed. A change is {@linkplain #add added} under that lock,
 * with the change itself; {@link #run()} is called after the lock is released: it tells of every
 * change added so far, unless another thread is doing so already (that thread then tells of these
 * too, right after the ones before). Changes applied on several threads at once are thus told in
 * the order they were applied, never a later one before an earlier one. A listener that throws is
 * logged and the next one is told.
 *
 * <p>Thread-safe; its own fields are guarded by {@code this}, which is never held while a
 * notification runs. Taken while holding the state's lock (by {@link #add}), never the other way.
 */
final class OrderedNotifier {
    private final Logger logger;
    private final Object owner;
    /** Guarded by this: the notifications not told yet, oldest first. */
    private final ArrayDeque<Runnable> pending = new ArrayDeque<>();
    /** Guarded by this: whether a thread is in {@link #run()}'s loop. */
    private boolean running;

    /**
     * @param logger where a failed notification is logged
     * @param owner  named in that log
     */
    OrderedNotifier(Logger logger, Object owner) {
        this.logger = logger;
        this.owner = owner;
    }

    /** Queues a notification; call it under the lock of the change it tells of. */
    synchronized void add(Runnable notification) {
        pending.add(notification);
    }

    /** Outside any lock: tells of the changes queued so far (see the class comment). */
    void run() {
        synchronized (this) {
            if (running) {
                return;
            }
            running = true;
        }
        while (true) {
            Runnable next;
            synchronized (this) {
                next = pending.poll();
                if (next == null) {
                    running = false;
                    return;
                }
            }
            try {
                next.run();
            } catch (RuntimeException x) {
                logger.warn("Telling the listeners of {} failed", owner, x);
            } catch (Error x) {
                // A listener's Error: the notifications still queued are told by the next change.
                synchronized (this) {
                    running = false;
                }
                throw x;
            }
        }
    }
}
