package io.bayeux.client.ext;

import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSession;
import io.bayeux.common.TimestampFormat;

import java.time.Clock;
import java.time.format.DateTimeFormatter;

/**
 * Stamps every message the client sends (meta messages included) with the top-level field
 * {@code timestamp}, the client's time when the message left, as CometD's client timestamp
 * extension does.
 *
 * <p>By default the stamp is an ISO-8601 UTC instant with milliseconds, for example
 * {@code 2026-11-21T06:02:00.123Z} ({@link #DEFAULT_FORMATTER}), the server's
 * {@code TimestampExtension} default too. CometD's clients write a {@code Date.toString()}-like
 * text: pass {@code DateTimeFormatter.ofPattern("EEE MMM dd HH:mm:ss zzz yyyy", Locale.US)}
 * for that. Thread-safe.
 */
public final class TimestampExtension implements ClientSession.Extension {
    /** {@code yyyy-MM-ddTHH:mm:ss.SSSZ} in UTC, always with three fraction digits. */
    public static final DateTimeFormatter DEFAULT_FORMATTER = TimestampFormat.ISO_MILLIS;

    private final TimestampFormat format;

    /** ISO-8601 UTC instants with milliseconds, from the system clock. */
    public TimestampExtension() {
        this(DEFAULT_FORMATTER, Clock.systemUTC());
    }

    /**
     * @param formatter formats {@code ZonedDateTime.now(clock)}
     * @param clock the time source and its zone
     * @throws IllegalArgumentException when {@code formatter} cannot format such a time
     */
    public TimestampExtension(DateTimeFormatter formatter, Clock clock) {
        this.format = new TimestampFormat(formatter, clock);
    }

    @Override
    public boolean send(ClientSession session, Message.Mutable message) {
        message.put(Message.TIMESTAMP_FIELD, format.now());
        return true;
    }

    @Override
    public boolean sendMeta(ClientSession session, Message.Mutable message) {
        return send(session, message);
    }

    @Override
    public String toString() {
        return "TimestampExtension[" + format.formatter() + "]";
    }
}
