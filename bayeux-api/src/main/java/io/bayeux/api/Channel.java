package io.bayeux.api;

import java.util.Set;

/**
 * A named Bayeux channel, as seen by a server or a client. Attributes are free-form and
 * belong to the application.
 */
public interface Channel {
    String META = "/meta";
    String META_HANDSHAKE = META + "/handshake";
    String META_CONNECT = META + "/connect";
    String META_SUBSCRIBE = META + "/subscribe";
    String META_UNSUBSCRIBE = META + "/unsubscribe";
    String META_DISCONNECT = META + "/disconnect";
    String SERVICE = "/service";

    /** The channel name, e.g. {@code /chat/room1}. */
    String getId();

    /** The parsed channel name. */
    ChannelId getChannelId();

    default boolean isMeta() {
        return getChannelId().isMeta();
    }

    default boolean isService() {
        return getChannelId().isService();
    }

    default boolean isBroadcast() {
        return getChannelId().isBroadcast();
    }

    default boolean isWild() {
        return getChannelId().isWild();
    }

    default boolean isDeepWild() {
        return getChannelId().isDeepWild();
    }

    void setAttribute(String name, Object value);

    Object getAttribute(String name);

    Set<String> getAttributeNames();

    Object removeAttribute(String name);
}
