package io.bayeux.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** A {@link Clock} that tests move by hand. Thread-safe. */
public final class MutableClock extends Clock {
    private final AtomicReference<Instant> now;
    private final ZoneId zone;

    public MutableClock(Instant start) {
        this(new AtomicReference<>(start), ZoneOffset.UTC);
    }

    private MutableClock(AtomicReference<Instant> now, ZoneId zone) {
        this.now = now;
        this.zone = zone;
    }

    /** Moves the time forward (or back, with a negative amount). */
    public void advance(Duration amount) {
        now.updateAndGet(t -> t.plus(amount));
    }

    public void advanceMillis(long millis) {
        advance(Duration.ofMillis(millis));
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return new MutableClock(now, zone);
    }

    @Override
    public Instant instant() {
        return now.get();
    }

    @Override
    public String toString() {
        return "MutableClock[" + now.get() + ", " + zone + "]";
    }
}
