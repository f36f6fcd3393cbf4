package io.bayeux.api.server;

import io.bayeux.api.Promise;
import io.bayeux.api.Session;

import java.util.Set;

/** A channel on the server: it has subscribers and can be published to. */
public interface ServerChannel extends ConfigurableServerChannel {
    /** A snapshot of the subscribed sessions. */
    Set<ServerSession> getSubscribers();

    /**
     * Publishes a message on this channel as if {@code from} sent it: channel listeners may
     * veto it, then it reaches every subscriber of this channel and of the matching wildcard
     * channels, once per session.
     *
     * @param from the publishing session, or {@code null} for the server itself
     * @param promise told true when the message was published, false when vetoed
     */
    void publish(Session from, ServerMessage.Mutable message, Promise<Boolean> promise);

    /** Publishes {@code data} on this channel. */
    void publish(Session from, Object data, Promise<Boolean> promise);

    /** Publishes {@code data} on this channel, ignoring the outcome. */
    default void publish(Session from, Object data) {
        publish(from, data, Promise.noop());
    }

    /**
     * Subscribes a session to this channel, running the subscription listeners.
     *
     * @return whether the session was not already subscribed
     */
    boolean subscribe(ServerSession session);

    /** @return whether the session was subscribed */
    boolean unsubscribe(ServerSession session);

    /** Removes the channel, unsubscribing every session. */
    void remove();

    /**
     * Told of messages published on the channel before they are delivered; returning false
     * vetoes the message. Runs on the publishing thread.
     */
    @FunctionalInterface
    interface MessageListener extends ServerChannelListener {
        boolean onMessage(ServerSession from, ServerChannel channel, ServerMessage.Mutable message);
    }

    /** Told of subscriptions and unsubscriptions of this channel. */
    interface SubscriptionListener extends ServerChannelListener {
        void subscribed(ServerSession session, ServerChannel channel, ServerMessage message);

        void unsubscribed(ServerSession session, ServerChannel channel, ServerMessage message);
    }
}
