package io.bayeux.oort.seti;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.bayeux.oort.seti.Seti.ALIVE_FIELD;
import static io.bayeux.oort.seti.Seti.CHANNEL_FIELD;
import static io.bayeux.oort.seti.Seti.DATA_FIELD;
import static io.bayeux.oort.seti.Seti.OORT_URL_FIELD;
import static io.bayeux.oort.seti.Seti.PRESENCE_FIELD;
import static io.bayeux.oort.seti.Seti.REPLACE_FIELD;
import static io.bayeux.oort.seti.Seti.SETI_ID_FIELD;
import static io.bayeux.oort.seti.Seti.USER_IDS_FIELD;
import static io.bayeux.oort.seti.Seti.USER_ID_FIELD;

/**
 * The data of the messages of CometD's Seti protocol that a node sends. Presence changes go on
 * {@code /seti/all} as {@code {"userIds", "oortURL", "presence", "replace": false}}. As in
 * CometD 8: when another node subscribes to {@code /seti/all} here, it is sent this node's
 * snapshot ({@code "presence": true, "replace": true, "alive": true}), which it answers on
 * this node's {@code /seti/<id>} with its own snapshot (the same without {@code "alive"});
 * when a node joins, each side sends the other its snapshot (without {@code "alive"}); a
 * Seti that stops says so on {@code /seti/all} with an empty snapshot and {@code "alive":
 * false}. A message to a user goes on {@code /seti/<id>} of each node where the user is (on
 * {@code /seti/all} when it is nowhere known) as {@code {"userId", "channel", "setiId", "data"}}.
 */
final class SetiMessages {
    private SetiMessages() {
    }

    /** Users of the node at {@code oortURL} arrived ({@code present}) or left: {@code "replace": false}. */
    static Map<String, Object> presence(String oortURL, List<String> userIds, boolean present) {
        return presence(oortURL, userIds, present, false);
    }

    /** Every user of the node at {@code oortURL}, replacing what the receiver had of them; the caller may add {@code "alive"}. */
    static Map<String, Object> snapshot(String oortURL, List<String> userIds) {
        return presence(oortURL, userIds, true, true);
    }

    private static Map<String, Object> presence(String oortURL, List<String> userIds, boolean present, boolean replace) {
        return fields(USER_IDS_FIELD, userIds, OORT_URL_FIELD, oortURL, PRESENCE_FIELD, present, REPLACE_FIELD, replace);
    }

    /** The node at {@code oortURL} stops: an empty snapshot with {@code "alive": false}. */
    static Map<String, Object> stopping(String oortURL) {
        Map<String, Object> data = snapshot(oortURL, List.of());
        data.put(ALIVE_FIELD, false);
        return data;
    }

    /** A message to the sessions of {@code userId} on another node, from the node of {@code setiId}. */
    static Map<String, Object> toUser(String userId, String channel, String setiId, Object payload) {
        return fields(USER_ID_FIELD, userId, CHANNEL_FIELD, channel, SETI_ID_FIELD, setiId, DATA_FIELD, payload);
    }

    /** A mutable map of the names and values given in turn, in that order (the order CometD writes them). */
    private static Map<String, Object> fields(Object... namesAndValues) {
        Map<String, Object> data = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            data.put((String) namesAndValues[i], namesAndValues[i + 1]);
        }
        return data;
    }
}
