package io.bayeux.server.ext;

import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
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
 * <p>The number of a batch is written into the connect reply it goes out with, when the
 * queue is taken for that reply ({@link #deQueue(ServerSession, Queue, List)}): a batch and
 * its number always travel together. When another extension deletes a connect reply, the
 * core does not take the queue for it, so no message goes out without its number (which
 * would make the client acknowledge too little and receive it again).
 *
 * <p>Thread-safety: the state is guarded by this extension's own lock, which is only ever
 * taken last (inside the session lock in {@link #deQueue}, alone elsewhere) and never held
 * while calling other code.
 *
 * <p>Memory: messages are held until acknowledged, so a client that opts in but never
 * acknowledges keeps them until its session goes away. The session's queue bound counts only
 * the messages not sent yet; the transport's overflow policy disconnects an acknowledging
 * session whose queue overflows, with an error its client sees, rather than drop a message.
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

    @Override
    public void deQueue(ServerSession session, Queue<ServerMessage> queue) {
        deQueue(session, queue, List.of());
    }

    /**
     * Runs under the session lock when the queue is taken for a connect reply: the newly
     * queued messages join the unacknowledged ones in a new batch, the queue is replaced by
     * all the unacknowledged messages, and the connect reply gets the batch's number.
     */
    @Override
    public void deQueue(ServerSession session, Queue<ServerMessage> queue, List<ServerMessage.Mutable> replies) {
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
        for (ServerMessage.Mutable reply : replies) {
            if (Channel.META_CONNECT.equals(reply.getChannel())) {
                reply.getExt(true).put(AcknowledgedMessagesExtension.ACK_FIELD, batch);
            }
        }
    }

    /**
     * Tells the client the server agreed (handshake). A connect reply gets its batch number
     * when the queue is taken for it; one that carries no queue (the session is going away)
     * has none, and the client's acknowledgement stays where it was.
     */
    @Override
    public boolean sendMeta(ServerSession session, ServerMessage.Mutable message) {
        if (Channel.META_HANDSHAKE.equals(message.getChannel()) && message.isSuccessful()) {
            message.getExt(true).put(AcknowledgedMessagesExtension.ACK_FIELD, Boolean.TRUE);
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
