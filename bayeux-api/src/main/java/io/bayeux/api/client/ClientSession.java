package io.bayeux.api.client;

import io.bayeux.api.Message;
import io.bayeux.api.Session;

import java.util.List;
import java.util.Map;

/**
 * The client side of a Bayeux session: handshake, channels, remote calls. Implemented by the
 * server's in-process {@code LocalSession} and by network clients. Thread-safe.
 */
public interface ClientSession extends Session {
    void addExtension(Extension extension);

    void removeExtension(Extension extension);

    List<Extension> getExtensions();

    /** Handshakes with no extra fields and no callback. */
    default void handshake() {
        handshake(null, null);
    }

    /**
     * Handshakes.
     *
     * @param fields extra fields merged into the handshake message (for example {@code ext}), or {@code null}
     * @param callback told of the handshake reply, or {@code null}
     */
    void handshake(Map<String, Object> fields, MessageListener callback);

    /** Disconnects, telling {@code callback} of the reply (or {@code null}). */
    void disconnect(MessageListener callback);

    @Override
    default void disconnect() {
        disconnect(null);
    }

    /** The client-side channel with that name, created when absent. */
    ClientSessionChannel getChannel(String channelName);

    /**
     * Calls a service on the server: publishes {@code data} on {@code /service/<target>} and
     * tells {@code callback} of the reply that carries the same message id.
     */
    void remoteCall(String target, Object data, MessageListener callback);

    /** A callback for a reply. */
    @FunctionalInterface
    interface MessageListener {
        void onMessage(Message message);
    }

    /** Sees, and may change or drop, the messages of a client session. */
    interface Extension {
        default boolean rcv(ClientSession session, Message.Mutable message) {
            return true;
        }

        default boolean rcvMeta(ClientSession session, Message.Mutable message) {
            return true;
        }

        default boolean send(ClientSession session, Message.Mutable message) {
            return true;
        }

        default boolean sendMeta(ClientSession session, Message.Mutable message) {
            return true;
        }
    }
}
