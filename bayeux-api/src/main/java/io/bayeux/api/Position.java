package io.bayeux.api;

import java.util.Map;
import java.util.Objects;

/**
 * Where a message stands in its channel's history: an {@code offset} that grows with each
 * message of the channel, and the {@code epoch} that names the history it belongs to. Offsets
 * compare only within one epoch. A message carries it in {@code ext.position}; a
 * {@code /meta/subscribe} asks to recover from one in {@code ext.recover}, and its reply says
 * where the subscription starts in {@code ext.history}.
 */
public record Position(long offset, String epoch) {
    /** The field of {@code ext} that holds a message's position. */
    public static final String EXT_FIELD = "position";
    /** The field of a {@code /meta/subscribe}'s {@code ext}: channel → position to recover from. */
    public static final String RECOVER_FIELD = "recover";
    /** The field of a {@code /meta/subscribe} reply's {@code ext}: channel → where it starts, and whether it recovered. */
    public static final String HISTORY_FIELD = "history";
    public static final String OFFSET_FIELD = "offset";
    public static final String EPOCH_FIELD = "epoch";
    public static final String RECOVERED_FIELD = "recovered";
    public static final String REASON_FIELD = "reason";
    public static final String REPLAYED_FIELD = "replayed";

    public Position {
        Objects.requireNonNull(epoch, "epoch");
    }

    /** This position as its JSON object. */
    public Map<String, Object> toMap() {
        return Map.of(OFFSET_FIELD, offset, EPOCH_FIELD, epoch);
    }

    /** The position a JSON object holds, or null when it is not one. */
    public static Position from(Object value) {
        if (value instanceof Map<?, ?> map && map.get(OFFSET_FIELD) instanceof Number offset
                && map.get(EPOCH_FIELD) instanceof String epoch && !(offset instanceof Double || offset instanceof Float)) {
            return new Position(offset.longValue(), epoch);
        }
        return null;
    }

    /** The position in a message's {@code ext.position}, or null. */
    public static Position of(Message message) {
        Map<String, Object> ext = message.getExt();
        return ext == null ? null : from(ext.get(EXT_FIELD));
    }
}
