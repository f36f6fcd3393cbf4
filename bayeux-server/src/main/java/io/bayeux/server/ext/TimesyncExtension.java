package io.bayeux.server.ext;

import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.server.NonBlocking;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Lets clients estimate their clock offset from the server's and the network lag, as CometD's
 * timesync extension does (meta messages only).
 *
 * <p>A client sends {@code "ext": {"timesync": {"tc": t, "l": lag, "o": offset}}} on a meta
 * message: {@code tc} its clock when sending, {@code l} and {@code o} its current estimates
 * of lag and offset. On receipt the server notes its own time {@code ts} (and keeps {@code l}
 * in the session attribute {@link #LAG_ATTRIBUTE}); the reply then carries
 * {@code "ext": {"timesync": {"tc": tc, "ts": ts, "p": p, "a": a}}} where {@code p} is the
 * time the server spent on the message and {@code a = (tc + o + l) - ts} the error of the
 * client's estimate. The answer is left out when the estimate is already within the accuracy
 * target (default {@value #DEFAULT_ACCURACY_TARGET} ms), unless the client reports a lag of 0.
 * A request without {@code l} (old clients) is always answered, with {@code tc}, {@code ts}
 * and {@code p} only.
 *
 * <p>Time is wall-clock milliseconds since the epoch, read from the injected clock. Thread-safe.
 */
public final class TimesyncExtension implements BayeuxServer.Extension, NonBlocking {
    /** The {@code ext} field of the protocol. */
    public static final String TIMESYNC_FIELD = "timesync";
    /** The session attribute holding the last lag (ms, a Number) the client reported. */
    public static final String LAG_ATTRIBUTE = "lag";
    /** Default accuracy target in ms. */
    public static final int DEFAULT_ACCURACY_TARGET = 25;

    private final LongSupplier clock;
    private volatile int accuracyTarget = DEFAULT_ACCURACY_TARGET;

    /** With the system clock ({@link System#currentTimeMillis()}). */
    public TimesyncExtension() {
        this(System::currentTimeMillis);
    }

    /** @param clock wall-clock milliseconds since the epoch */
    public TimesyncExtension(LongSupplier clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    public int getAccuracyTarget() {
        return accuracyTarget;
    }

    /** @param accuracyTarget the error (ms) below which a client's estimate is not corrected; >= 0 */
    public void setAccuracyTarget(int accuracyTarget) {
        if (accuracyTarget < 0) {
            throw new IllegalArgumentException("accuracyTarget must be >= 0: " + accuracyTarget);
        }
        this.accuracyTarget = accuracyTarget;
    }

    @Override
    public boolean rcvMeta(ServerSession from, ServerMessage.Mutable message) {
        Map<String, Object> ext = message.getExt();
        if (ext == null || !(ext.get(TIMESYNC_FIELD) instanceof Map<?, ?> timesync)) {
            return true;
        }
        // Copies, so that maps the sender may still hold (or made immutable) are never changed.
        Map<String, Object> stamped = new HashMap<>();
        timesync.forEach((k, v) -> stamped.put(String.valueOf(k), v));
        stamped.put("ts", clock.getAsLong());
        Map<String, Object> newExt = new HashMap<>(ext);
        newExt.put(TIMESYNC_FIELD, stamped);
        message.put(ServerMessage.EXT_FIELD, newExt);
        if (from != null && stamped.get("l") instanceof Number lag) {
            from.setAttribute(LAG_ATTRIBUTE, lag);
        }
        return true;
    }

    @Override
    public boolean sendMeta(ServerSession to, ServerMessage.Mutable message) {
        ServerMessage request = message.getAssociated();
        Map<String, Object> ext = request == null ? null : request.getExt();
        if (ext == null || !(ext.get(TIMESYNC_FIELD) instanceof Map<?, ?> timesync)
                || !(timesync.get("tc") instanceof Number tcValue) || !(timesync.get("ts") instanceof Number tsValue)) {
            return true;
        }
        long tc = tcValue.longValue();
        long ts = tsValue.longValue();
        long p = clock.getAsLong() - ts;
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("tc", tc);
        answer.put("ts", ts);
        answer.put("p", p);
        if (timesync.get("l") instanceof Number lagValue) {
            long l = lagValue.longValue();
            long o = timesync.get("o") instanceof Number offset ? offset.longValue() : 0;
            long a = (tc + o + l) - ts;
            int target = accuracyTarget;
            if (l != 0 && a < target && a > -target) {
                return true;
            }
            answer.put("a", a);
        }
        message.getExt(true).put(TIMESYNC_FIELD, answer);
        return true;
    }

    @Override
    public String toString() {
        return "TimesyncExtension[accuracyTarget=" + accuracyTarget + "]";
    }
}
