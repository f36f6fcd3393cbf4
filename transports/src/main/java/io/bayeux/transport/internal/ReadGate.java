package io.bayeux.transport.internal;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * Why a connection is not read: it reads again only once every reason is gone. Reasons are
 * independent (the connection cannot take more writes; too many of its frames wait to be
 * handled; the server is behind with deliveries and it publishes), so that lifting one does
 * not resume reading that another still forbids. The state is made on the first pause: a
 * connection that is never paused costs nothing. Any thread: every change is queued to the
 * connection's event loop, even from the loop itself, so that changes apply in the order they
 * were asked for and a pause and a resume that race cannot leave the connection unread with
 * no reason.
 */
public final class ReadGate {
    /** The connection's outbound buffer is above its high water mark. */
    public static final int UNWRITABLE = 1;
    /** More of its frames wait for the executor than it may have in flight. */
    public static final int BACKLOG = 2;
    /** The server is behind delivering to readers that keep reading, and this connection publishes. */
    public static final int OVERLOAD = 4;

    /** The reasons that are the server's doing, not the connection's: its client is not to blame meanwhile. */
    private static final int SERVERS = BACKLOG | OVERLOAD;

    /**
     * The user event fired down the connection's pipeline, on its loop, when the server starts
     * ({@link #HELD_BACK}) or stops ({@link #RELEASED}) holding its reading back for its own
     * sake (a backlog, an overload): what the client sent meanwhile, a {@code /meta/connect}
     * included, waits unread, so its sessions must not expire for want of it.
     */
    public enum HeldBack {
        HELD_BACK, RELEASED
    }

    private static final AttributeKey<AtomicInteger> REASONS = AttributeKey.valueOf(ReadGate.class, "reasons");

    private ReadGate() {
    }

    /** Stops reading {@code channel} for {@code reason}. */
    public static void pause(Channel channel, int reason) {
        submit(channel, reason, true);
    }

    /** Lifts {@code reason}; reads again when no other reason holds. */
    public static void resume(Channel channel, int reason) {
        submit(channel, reason, false);
    }

    /**
     * Stops reading {@code channel} for {@code reason} if {@code stillWanted} holds once the
     * change is applied, on the loop. For a reason decided from a count that other threads
     * change (frames in flight): the resume decided after this pause may be queued before it.
     */
    public static void pauseIf(Channel channel, int reason, BooleanSupplier stillWanted) {
        submit(channel, reason, true, stillWanted);
    }

    /** Lifts {@code reason} if {@code stillWanted} holds once the change is applied, on the loop (see {@link #pauseIf}). */
    public static void resumeIf(Channel channel, int reason, BooleanSupplier stillWanted) {
        submit(channel, reason, false, stillWanted);
    }

    private static void submit(Channel channel, int reason, boolean pause) {
        submit(channel, reason, pause, null);
    }

    private static void submit(Channel channel, int reason, boolean pause, BooleanSupplier stillWanted) {
        try {
            channel.eventLoop().execute(() -> {
                if (stillWanted == null || stillWanted.getAsBoolean()) {
                    apply(channel, reason, pause);
                }
            });
        } catch (RejectedExecutionException x) {
            // The loop is shutting down, and its connections with it.
        }
    }

    /** On the loop, in the order the changes were asked for. */
    private static void apply(Channel channel, int reason, boolean pause) {
        if (pause) {
            doPause(channel, reason);
        } else {
            doResume(channel, reason);
        }
    }

    private static void doPause(Channel channel, int reason) {
        AtomicInteger reasons = channel.attr(REASONS).get();
        if (reasons == null) {
            AtomicInteger made = new AtomicInteger();
            reasons = channel.attr(REASONS).setIfAbsent(made);
            if (reasons == null) {
                reasons = made;
            }
        }
        int before = reasons.getAndUpdate(r -> r | reason);
        if ((before & reason) == 0) {
            channel.config().setAutoRead(false);
            if ((before & SERVERS) == 0 && (reason & SERVERS) != 0) {
                channel.pipeline().fireUserEventTriggered(HeldBack.HELD_BACK);
            }
        }
    }

    private static void doResume(Channel channel, int reason) {
        if (!channel.hasAttr(REASONS)) {
            return;
        }
        AtomicInteger reasons = channel.attr(REASONS).get();
        if (reasons == null) {
            return;
        }
        int before = reasons.getAndUpdate(r -> r & ~reason);
        if ((before & reason) != 0 && (before & ~reason) == 0) {
            channel.config().setAutoRead(true);
        }
        if ((before & reason & SERVERS) != 0 && (before & ~reason & SERVERS) == 0) {
            channel.pipeline().fireUserEventTriggered(HeldBack.RELEASED);
        }
    }

    /** Whether {@code reason} holds for {@code channel}. */
    public static boolean isPaused(Channel channel, int reason) {
        if (!channel.hasAttr(REASONS)) {
            return false;
        }
        AtomicInteger reasons = channel.attr(REASONS).get();
        return reasons != null && (reasons.get() & reason) != 0;
    }
}
