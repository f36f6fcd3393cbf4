package io.bayeux.client;

import io.bayeux.api.Message;

import java.util.ArrayList;
import java.util.List;

/**
 * The messages the application sends while its client has no connection to send them on
 * (before the handshake is answered, or while it reconnects), bounded: they go once the
 * client is connected again.
 *
 * <p>Not thread-safe: the lock of the client that owns it guards it.
 */
final class PendingMessages {
    private final int max;
    private List<Message.Mutable> messages = new ArrayList<>();

    /** @param max how many may wait; {@link #offer} refuses more */
    PendingMessages(int max) {
        this.max = max;
    }

    /** @return false when {@code max} messages wait already */
    boolean offer(Message.Mutable message) {
        if (messages.size() >= max) {
            return false;
        }
        messages.add(message);
        return true;
    }

    /** Takes every waiting message, giving each the session's {@code clientId} when not null. */
    List<Message.Mutable> takeAll(String clientId) {
        List<Message.Mutable> result = messages;
        messages = new ArrayList<>();
        if (clientId != null) {
            for (Message.Mutable message : result) {
                message.setClientId(clientId);
            }
        }
        return result;
    }
}
