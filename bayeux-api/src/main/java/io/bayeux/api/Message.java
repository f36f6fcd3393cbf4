package io.bayeux.api;

import java.util.Map;

/**
 * A Bayeux message: a JSON object seen as a map, with typed accessors for the fields the
 * protocol defines. Implementations are not thread-safe while mutable; a message handed to
 * other threads (a broadcast) is frozen first.
 */
public interface Message extends Map<String, Object> {
    String ADVICE_FIELD = "advice";
    String CHANNEL_FIELD = "channel";
    String CLIENT_ID_FIELD = "clientId";
    String CONNECTION_TYPE_FIELD = "connectionType";
    String DATA_FIELD = "data";
    String ERROR_FIELD = "error";
    String EXT_FIELD = "ext";
    String ID_FIELD = "id";
    String MIN_VERSION_FIELD = "minimumVersion";
    String SUBSCRIPTION_FIELD = "subscription";
    String SUCCESSFUL_FIELD = "successful";
    String SUPPORTED_CONNECTION_TYPES_FIELD = "supportedConnectionTypes";
    String TIMESTAMP_FIELD = "timestamp";
    String VERSION_FIELD = "version";

    String RECONNECT_FIELD = "reconnect";
    String INTERVAL_FIELD = "interval";
    String TIMEOUT_FIELD = "timeout";
    String MAX_INTERVAL_FIELD = "maxInterval";
    String MULTIPLE_CLIENTS_FIELD = "multiple-clients";
    String RECONNECT_RETRY_VALUE = "retry";
    String RECONNECT_HANDSHAKE_VALUE = "handshake";
    String RECONNECT_NONE_VALUE = "none";

    /** The {@code advice} object, or {@code null}. */
    Map<String, Object> getAdvice();

    /** The {@code channel} name, or {@code null}. */
    String getChannel();

    /** The parsed channel, or {@code null} when missing; throws on an invalid name. */
    ChannelId getChannelId();

    String getClientId();

    Object getData();

    /** The {@code data} field when it is an object, else {@code null}. */
    Map<String, Object> getDataAsMap();

    /** The {@code ext} object, or {@code null}. */
    Map<String, Object> getExt();

    /** The {@code id} as a string (clients may send numbers), or {@code null}. */
    String getId();

    /** Whether the {@code successful} field is {@code true}. */
    boolean isSuccessful();

    /** Whether the channel is a {@code /meta} channel. */
    default boolean isMeta() {
        String channel = getChannel();
        return channel != null && channel.startsWith(Channel.META + "/");
    }

    /** Whether this is the reply to a publish: it has {@code successful} but no {@code data}. */
    default boolean isPublishReply() {
        return !isMeta() && containsKey(SUCCESSFUL_FIELD) && !containsKey(DATA_FIELD);
    }

    /** A message that may be changed. */
    interface Mutable extends Message {
        /** The advice object, created when absent and {@code create} is true. */
        Map<String, Object> getAdvice(boolean create);

        /** The data object, created when absent and {@code create} is true. */
        Map<String, Object> getDataAsMap(boolean create);

        /** The ext object, created when absent and {@code create} is true. */
        Map<String, Object> getExt(boolean create);

        void setChannel(String channel);

        void setClientId(String clientId);

        void setData(Object data);

        void setId(String id);

        void setSuccessful(boolean successful);
    }
}
