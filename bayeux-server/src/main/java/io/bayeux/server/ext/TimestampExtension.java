package io.bayeux.server.ext;

import io.bayeux.api.Message;
import io.bayeux.api.server.BayeuxServer;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.api.server.ServerSession;
import io.bayeux.common.TimestampFormat;
import io.bayeux.server.NonBlocking;

import java.time.Clock;
import java.time.format.DateTimeFormatter;

/**
 * Stamps every outgoing message (published messages, once per publish before they fan out,
 * and replies) with the top-level field {@code timestamp}, the server's time when the
 * message left the server's hands.
 *
 * <p>By default the stamp is an ISO-8601 UTC instant with milliseconds, for example
 * {@code 2026-11-21T06:02:00.123Z} ({@link #DEFAULT_FORMATTER}), which
 * {@link java.time.Instant#parse(CharSequence)} and JavaScript's {@code Date.parse} read
 * back. (CometD's default is a {@code Date.toString()}-like text in the JVM's zone; pass
 * {@code DateTimeFormatter.ofPattern("EEE MMM dd HH:mm:ss zzz yyyy", Locale.US)} and a clock
 * in the wanted zone to reproduce it.) The time formatted is {@code ZonedDateTime.now(clock)},
 * in the clock's zone.
 *
 * <p>A message that is already frozen (re-delivered by server code) is left as it is.
 * Thread-safe.
 */
public final class TimestampExtension implements BayeuxServer.Extension, NonBlocking {
    /** {@code yyyy-MM-ddTHH:mm:ss.SSSZ} in UTC, always with three fraction digits. */
    public static final DateTimeFormatter DEFAULT_FORMATTER = TimestampFormat.ISO_MILLIS;

    private final TimestampFormat format;

    /** ISO-8601 UTC instants with milliseconds, from the system clock. */
    public TimestampExtension() {
        this(DEFAULT_FORMATTER);
    }

    /** @param formatter formats the current time of the system clock in UTC */
    public TimestampExtension(DateTimeFormatter formatter) {
        this(formatter, Clock.systemUTC());
    }

    /**
     * @param formatter formats {@code ZonedDateTime.now(clock)}
     * @param clock the time source and its zone
     * @throws IllegalArgumentException when {@code formatter} cannot format such a time
     */
    public TimestampExtension(DateTimeFormatter formatter, Clock clock) {
        this.format = new TimestampFormat(formatter, clock);
    }

    /** The stamp for the current time. */
    public String now() {
        return format.now();
    }

    @Override
    public boolean send(ServerSession from, ServerSession to, ServerMessage.Mutable message) {
        stamp(message);
        return true;
    }

    @Override
    public boolean sendMeta(ServerSession to, ServerMessage.Mutable message) {
        stamp(message);
        return true;
    }

    private void stamp(ServerMessage.Mutable message) {
        if (!message.isFrozen()) {
            message.put(Message.TIMESTAMP_FIELD, now());
        }
    }

    @Override
    public String toString() {
        return "TimestampExtension[" + format + "]";
    }
}
