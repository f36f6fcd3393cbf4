package io.bayeux.common;

import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoUnit;
import java.time.temporal.Temporal;
import java.time.temporal.TemporalAccessor;
import java.time.temporal.TemporalField;
import java.time.temporal.TemporalUnit;
import java.time.temporal.UnsupportedTemporalTypeException;
import java.time.temporal.ValueRange;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

class TimestampFormatTest {
    private static final Instant AT = Instant.parse("2026-11-21T06:02:01Z");

    @Test
    void isoMillisWritesAUtcInstantWithThreeFractionDigitsEvenWhenTheyAreZero() {
        TimestampFormat format = new TimestampFormat(TimestampFormat.ISO_MILLIS, Clock.fixed(AT, ZoneId.of("Europe/Paris")));

        assertEquals("2026-11-21T06:02:01.000Z", format.now());
    }

    @Test
    void aPatternFormatsTheTimeInTheClocksZone() {
        DateTimeFormatter cometdStyle = DateTimeFormatter.ofPattern("EEE MMM dd HH:mm:ss zzz yyyy", Locale.US);
        TimestampFormat format = new TimestampFormat(cometdStyle, Clock.fixed(AT, ZoneId.of("Europe/Paris")));

        assertEquals("Sat Nov 21 07:02:01 CET 2026", format.now());
    }

    @Test
    void aFormatterThatCannotFormatAZonedTimeIsRefusedAtOnce() {
        DateTimeFormatter formatter = new DateTimeFormatterBuilder().appendValue(NoSuchField.INSTANCE).toFormatter();

        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> new TimestampFormat(formatter, Clock.fixed(AT, ZoneId.of("UTC"))));
        assertInstanceOf(UnsupportedTemporalTypeException.class, refused.getCause());
    }

    /** A field no time value has. */
    private enum NoSuchField implements TemporalField {
        INSTANCE;

        @Override
        public TemporalUnit getBaseUnit() {
            return ChronoUnit.DAYS;
        }

        @Override
        public TemporalUnit getRangeUnit() {
            return ChronoUnit.FOREVER;
        }

        @Override
        public ValueRange range() {
            return ValueRange.of(0, 1);
        }

        @Override
        public boolean isDateBased() {
            return false;
        }

        @Override
        public boolean isTimeBased() {
            return false;
        }

        @Override
        public boolean isSupportedBy(TemporalAccessor temporal) {
            return false;
        }

        @Override
        public ValueRange rangeRefinedBy(TemporalAccessor temporal) {
            throw new UnsupportedTemporalTypeException("No such field");
        }

        @Override
        public long getFrom(TemporalAccessor temporal) {
            throw new UnsupportedTemporalTypeException("No such field");
        }

        @Override
        public <R extends Temporal> R adjustInto(R temporal, long newValue) {
            throw new UnsupportedTemporalTypeException("No such field");
        }
    }
}
