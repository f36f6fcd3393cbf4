package io.bayeux.common;

import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.time.chrono.HijrahChronology;
import java.time.format.DateTimeFormatter;
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
    void aFormatterThatCannotFormatTheClocksTimeIsRefusedAtOnce() {
        // The Hijrah calendar ends in 2174.
        DateTimeFormatter hijrah = DateTimeFormatter.ISO_LOCAL_DATE.withChronology(HijrahChronology.INSTANCE);
        Clock clock = Clock.fixed(Instant.parse("2500-01-01T00:00:00Z"), ZoneId.of("UTC"));

        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> new TimestampFormat(hijrah, clock));
        assertInstanceOf(DateTimeException.class, refused.getCause());
    }
}
