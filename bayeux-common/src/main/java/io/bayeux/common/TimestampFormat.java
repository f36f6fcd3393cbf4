package io.bayeux.common;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.util.Objects;

/**
 * The text of a message's {@code timestamp} field as the client's and the server's
 * {@code TimestampExtension} write it: a formatter applied to {@code ZonedDateTime.now(clock)},
 * the current time in the clock's zone. Immutable and thread-safe.
 */
public final class TimestampFormat {
    /** {@code yyyy-MM-ddTHH:mm:ss.SSSZ} in UTC, always with three fraction digits. */
    public static final DateTimeFormatter ISO_MILLIS = new DateTimeFormatterBuilder().appendInstant(3).toFormatter();

    private final DateTimeFormatter formatter;
    private final Clock clock;

    /**
     * @param formatter formats {@code ZonedDateTime.now(clock)}
     * @param clock the time source and its zone
     * @throws IllegalArgumentException when {@code formatter} cannot format such a time
     */
    public TimestampFormat(DateTimeFormatter formatter, Clock clock) {
        this.formatter = Objects.requireNonNull(formatter, "formatter");
        this.clock = Objects.requireNonNull(clock, "clock");
        try {
            formatter.format(ZonedDateTime.now(clock));
        } catch (DateTimeException x) {
            throw new IllegalArgumentException("Formatter cannot format the time of " + clock + ": " + formatter, x);
        }
    }

    /** The stamp for the current time of the clock. */
    public String now() {
        return formatter.format(ZonedDateTime.now(clock));
    }

    public DateTimeFormatter formatter() {
        return formatter;
    }

    @Override
    public String toString() {
        return formatter + ", " + clock;
    }
}
