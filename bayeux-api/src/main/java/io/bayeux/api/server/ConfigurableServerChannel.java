package io.bayeux.api.server;

import io.bayeux.api.Bayeux;
import io.bayeux.api.Channel;

import java.util.List;

/** The configuration of a server channel: listeners, laziness, persistence, authorizers. */
public interface ConfigurableServerChannel extends Channel {
    /** Adds a {@link ServerChannel.MessageListener} or {@link ServerChannel.SubscriptionListener}. */
    void addListener(ServerChannelListener listener);

    void removeListener(ServerChannelListener listener);

    List<ServerChannelListener> getListeners();

    /**
     * Whether messages on this channel are lazy: they wait for a non-lazy message or their
     * timeout. A lazy wildcard channel makes the messages of every channel it matches lazy.
     */
    boolean isLazy();

    void setLazy(boolean lazy);

    /**
     * The lazy timeout in milliseconds, or -1 to use the server's {@code maxLazyTimeout}. A
     * lazy message waits for the shortest timeout of the lazy channels it is published to
     * (wildcards included), never longer than {@code maxLazyTimeout}.
     */
    long getLazyTimeout();

    /** Sets the lazy timeout in milliseconds; a value other than -1 also makes the channel lazy. */
    void setLazyTimeout(long lazyTimeout);

    /** Whether the channel survives when it has no subscribers and no listeners. */
    boolean isPersistent();

    void setPersistent(boolean persistent);

    /** Whether a publisher that is subscribed receives its own messages; defaults to the server's setting. */
    boolean isBroadcastToPublisher();

    void setBroadcastToPublisher(boolean broadcastToPublisher);

    void addAuthorizer(Authorizer authorizer);

    void removeAuthorizer(Authorizer authorizer);

    List<Authorizer> getAuthorizers();

    /**
     * The history this channel keeps of its messages, or null (the default) for none. On a
     * wildcard channel it applies to every channel it matches that has none of its own.
     */
    HistoryPolicy getHistory();

    /** Sets the history (null for none). A channel with a history policy is never swept while idle. */
    void setHistory(HistoryPolicy history);

    /** Configures a channel before it becomes visible. */
    @FunctionalInterface
    interface Initializer {
        void configureChannel(ConfigurableServerChannel channel);

        /** An initializer that makes the channel persistent. */
        static Initializer persistent() {
            return channel -> channel.setPersistent(true);
        }
    }

    /** Marker for listeners of a channel. */
    interface ServerChannelListener extends Bayeux.BayeuxListener {
    }
}
