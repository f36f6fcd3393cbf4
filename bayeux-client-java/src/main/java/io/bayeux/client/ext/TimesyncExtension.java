package io.bayeux.client.ext;

import io.bayeux.api.Message;
import io.bayeux.api.client.ClientSession;

import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Estimates the network lag and the offset between the client's and the server's clocks from
 * the {@code ext.timesync} exchange on meta messages: {@code tc} is sent, the server answers
 * {@code ts} (its time at receipt) and {@code p} (how long it kept the message); then
 * {@code lag = (now - tc - p) / 2} and {@code offset = ts - tc - lag}. Thread-safe.
 */
public final class TimesyncExtension implements ClientSession.Extension {
    public static final String TIMESYNC_FIELD = "timesync";

    private final LongSupplier clock;
    private volatile long lag;
    private volatile long offset;

    public TimesyncExtension() {
        this(System::currentTimeMillis);
    }

    /** With an injected wall clock in milliseconds, for tests. */
    public TimesyncExtension(LongSupplier clock) {
        this.clock = clock;
    }

    @Override
    public boolean sendMeta(ClientSession session, Message.Mutable message) {
        message.getExt(true).put(TIMESYNC_FIELD, Map.of("tc", clock.getAsLong(), "l", lag, "o", offset));
        return true;
    }

    @Override
    public boolean rcvMeta(ClientSession session, Message.Mutable message) {
        Map<String, Object> ext = message.getExt();
        if (ext != null && ext.get(TIMESYNC_FIELD) instanceof Map<?, ?> sync
                && sync.get("tc") instanceof Number tc && sync.get("ts") instanceof Number ts && sync.get("p") instanceof Number p) {
            long now = clock.getAsLong();
            long newLag = (now - tc.longValue() - p.longValue()) / 2;
            lag = Math.max(0, newLag);
            offset = ts.longValue() - tc.longValue() - lag;
        }
        return true;
    }

    /** The estimated one-way network lag in ms. */
    public long getNetworkLag() {
        return lag;
    }

    /** The estimated server time minus client time, in ms. */
    public long getTimeOffset() {
        return offset;
    }

    /** The server's time now, as estimated. */
    public long getServerTime() {
        return clock.getAsLong() + offset;
    }
}
