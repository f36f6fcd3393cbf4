package io.bayeux.server.ext;

import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The per-session half of {@link AcknowledgedMessagesExtension}: keeps every message sent to
 * the session until the client acknowledges it, and sends it again until then.
 *
 * <p>The protocol (CometD's):
 * <ul>
 *   <li>Messages go out only in {@code /meta/connect} replies (the constructor sets
 *       {@link ServerSession#setMetaConnectDeliveryOnly(boolean)}), so that each message
 *       belongs to a numbered batch.</li>
 *   <li>The handshake reply carries {@code "ext": {"ack": true}}: the server agreed.</li>
 *   <li>Every {@code /meta/connect} reply carries {@code "ext": {"ack": n}}, the number of
 *       its batch: 1 for the first reply, then one more for each reply.</li>
 *   <li>The client sends in each {@code /meta/connect} {@code "ext": {"ack": m}}, the number
 *       of the last batch it received; the messages of batches up to {@code m} are forgotten.</li>
 *   <li>Each connect reply carries every message not yet acknowledged, in the order they
 *       were first queued: a reply that got lost is made good by the next one. When a
 *       connect acknowledges less than was sent, it is answered at once (its
 *       {@code advice.timeout} is set to 0) with the messages to send again.</li>
 * </ul>
 *
 * <p>Thread-safety: the state is guarded by this extension's own lock, which is only ever
 * taken last (inside the session lock in {@link #deQueue}, alone elsewhere) and never held
 * while calling other code. The number of the batch that {@link #deQueue} prepared is handed
 * to {@link #sendMeta} of the connect reply on the same thread: the core takes the queue and
 * then writes the reply on one thread. Should they ever run on different threads, the reply
 * closes a batch of its own whose number is at least as high, which can only make the client
 * acknowledge later (a duplicate, never a loss).
 *
 * <p>Memory: messages are held until acknowledged, so a client that opts in but never
 * acknowledges keeps them until its session goes away.
 */
public final class AcknowledgedMessagesSessionExtension implements ServerSession.Extension, ServerSession.DeQueueListener {
    private final ServerSession session;
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by lock: the messages sent and not acknowledged, in batch order. */
    private final ArrayDeque<Entry> unacknowledged = new ArrayDeque<>();
    /** Guarded by lock: the number the next batch gets. */
    private long nextBatch = 1;
    /** Guarded by lock: the highest batch the client acknowledged, 0 before the first. */
    private long acknowledged;
    /** The batch {@link #deQueue} prepared on this thread, for the connect reply written next. */
    private final ThreadLocal<Long> preparedBatch = new ThreadLocal<>();

    /**
     * Makes {@code session} deliver only in {@code /meta/connect} replies. The caller then adds
     * this object to the session both as an extension and as a listener, as
     * {@link AcknowledgedMessagesExtension} does.
     */
    public AcknowledgedMessagesSessionExtension(ServerSession session) {
        this.session = Objects.requireNonNull(session, "session");
        session.setMetaConnectDeliveryOnly(true);
    }

    /** The session this extension serves. */
    public ServerSession session() {
        return session;
    }

    /** How many messages wait for the client's acknowledgement. */
    public int unacknowledgedCount() {
        lock.lock();
        try {
            return unacknowledged.size();
        } finally {
            lock.unlock();
        }
    }

    /** The highest batch number the client acknowledged, 0 before the first acknowledgement. */
    public long acknowledgedBatch() {
        lock.lock();
        try {
            return acknowledged;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Reads the client's acknowledgement from a {@code /meta/connect} and forgets what it
     * covers; when messages remain to be sent again, the connect is not held.
     */
    @Override
    public boolean rcvMeta(ServerSession session, ServerMessage.Mutable message) {
        if (!Channel.META_CONNECT.equals(message.getChannel())) {
            return true;
        }
        Map<String, Object> ext = message.getExt();
        if (ext == null || !(ext.get(AcknowledgedMessagesExtension.ACK_FIELD) instanceof Number ack)) {
            return true;
        }
        long batch = ack.longValue();
        boolean redeliver;
        lock.lock();
        try {
            while (!unacknowledged.isEmpty() && unacknowledged.peekFirst().batch <= batch) {
                unacknowledged.pollFirst();
            }
            acknowledged = Math.max(acknowledged, batch);
            redeliver = !unacknowledged.isEmpty();
        } finally {
            lock.unlock();
        }
        if (redeliver) {
            // What is left was sent in replies the client never saw: answer this connect now.
            Map<String, Object> advice = message.getAdvice() == null ? new HashMap<>() : new HashMap<>(message.getAdvice());
            advice.put(Message.TIMEOUT_FIELD, 0L);
            message.put(Message.ADVICE_FIELD, advice);
        }
        return true;
    }

    /**
     * Runs under the session lock when the queue is taken for a connect reply: the newly
     * queued messages join the unacknowledged ones in a new batch, and the queue is replaced
     * by all the unacknowledged messages.
     */
    @Override
    public void deQueue(ServerSession session, Queue<ServerMessage> queue) {
        long batch;
        lock.lock();
        try {
            batch = nextBatch++;
            for (ServerMessage message : queue) {
                unacknowledged.add(new Entry(message, batch));
            }
            queue.clear();
            for (Entry entry : unacknowledged) {
                queue.add(entry.message);
            }
        } finally {
            lock.unlock();
        }
        preparedBatch.set(batch);
    }

    /** Tells the client the server agreed (handshake), and the number of each batch (connect). */
    @Override
    public boolean sendMeta(ServerSession session, ServerMessage.Mutable message) {
        String channel = message.getChannel();
        if (Channel.META_HANDSHAKE.equals(channel)) {
            if (message.isSuccessful()) {
                message.getExt(true).put(AcknowledgedMessagesExtension.ACK_FIELD, Boolean.TRUE);
            }
        } else if (Channel.META_CONNECT.equals(channel)) {
            Long batch = preparedBatch.get();
            preparedBatch.remove();
            if (batch == null) {
                // No queue was taken for this reply (the session is going away): an empty batch.
                lock.lock();
                try {
                    batch = nextBatch++;
                } finally {
                    lock.unlock();
                }
            }
            message.getExt(true).put(AcknowledgedMessagesExtension.ACK_FIELD, batch);
        }
        return true;
    }

    @Override
    public String toString() {
        lock.lock();
        try {
            return "AcknowledgedMessagesSessionExtension[" + session.getId() + ", nextBatch=" + nextBatch
                    + ", acknowledged=" + acknowledged + ", unacknowledged=" + unacknowledged.size() + "]";
        } finally {
            lock.unlock();
        }
    }

    private record Entry(ServerMessage message, long batch) {
    }
}
