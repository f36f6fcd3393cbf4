package io.bayeux.api.client;

import io.bayeux.api.Bayeux;
import io.bayeux.api.Channel;
import io.bayeux.api.Message;

import java.util.List;

/** A channel seen from a client: subscribe to it, publish on it, listen to meta channels. */
public interface ClientSessionChannel extends Channel {
    /** Adds a listener that sees every message on this channel (meta channels included), without subscribing. */
    void addListener(ClientSessionChannelListener listener);

    void removeListener(ClientSessionChannelListener listener);

    List<ClientSessionChannelListener> getListeners();

    ClientSession getSession();

    default void publish(Object data) {
        publish(data, null);
    }

    /** Publishes {@code data}; {@code callback} (may be null) is told of the reply. */
    void publish(Object data, ClientSession.MessageListener callback);

    /** Publishes a prepared message (its channel is set to this one); {@code callback} may be null. */
    void publish(Message.Mutable message, ClientSession.MessageListener callback);

    /** The listeners subscribed through this channel. */
    List<MessageListener> getSubscribers();

    default boolean subscribe(MessageListener listener) {
        return subscribe(listener, null);
    }

    /**
     * Subscribes {@code listener}; the first listener of a channel sends {@code /meta/subscribe},
     * later ones share that subscription.
     *
     * @return whether a subscribe message was sent
     */
    boolean subscribe(MessageListener listener, ClientSession.MessageListener callback);

    default boolean unsubscribe(MessageListener listener) {
        return unsubscribe(listener, null);
    }

    /**
     * Unsubscribes {@code listener}; the last one sends {@code /meta/unsubscribe}.
     *
     * @return whether an unsubscribe message was sent
     */
    boolean unsubscribe(MessageListener listener, ClientSession.MessageListener callback);

    /** Unsubscribes every listener. */
    void unsubscribe();

    /**
     * Releases the channel so that it can be garbage collected: only when it has no
     * listeners and no subscribers. A released channel refuses further use (adding or
     * removing listeners, subscribing, publishing) with an {@link IllegalStateException};
     * {@link ClientSession#getChannel(String)} then returns a new channel.
     *
     * @return whether it was released; false when it has listeners or subscribers
     */
    boolean release();

    boolean isReleased();

    /** Marker for client channel listeners. */
    interface ClientSessionChannelListener extends Bayeux.BayeuxListener {
    }

    /** Told of messages on a channel. */
    @FunctionalInterface
    interface MessageListener extends ClientSessionChannelListener {
        void onMessage(ClientSessionChannel channel, Message message);
    }
}
