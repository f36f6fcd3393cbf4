package io.bayeux.server.internal;

import io.bayeux.api.ChannelId;
import io.bayeux.api.Message;
import io.bayeux.api.Session;
import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.api.server.LocalSession;
import io.bayeux.api.server.ServerChannel;
import io.bayeux.api.server.ServerMessage;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Publishing and delivering: a published message passes its channels' listeners and the
 * server's extensions, is frozen (so it is encoded once, whoever receives it) and fans out to
 * the subscribers of its channel and of the wildcard channels that match it, once per session,
 * with the lazy timeout those channels give it; a private delivery goes to one session. The
 * channels' history, when on, takes a published message first ({@link Histories}).
 *
 * <p>Stateless and thread-safe: no lock on the publish path; each session guards its own queue.
 */
final class Broadcaster {
    private final BayeuxServerImpl server;
    private final ChannelRegistry channels;

    Broadcaster(BayeuxServerImpl server, ChannelRegistry channels) {
        this.server = server;
        this.channels = channels;
    }


    /**
     * Publishes on a channel: channel listeners (wildcard channels first) may veto; service
     * and meta channels stop there; otherwise the message loses its clientId and id, passes
     * the server extensions once, is frozen and goes to every subscriber of the channel and of
     * the matching wildcard channels, once per session.
     *
     * @return false when vetoed or dropped
     */
    boolean publish(ServerSessionImpl from, ServerChannelImpl channel, ServerMessage.Mutable message) {
        ChannelId channelId = channel.getChannelId();
        ServerChannelImpl[] wilds = wildChannels(channelId);
        for (int i = wilds.length - 1; i >= -1; i--) {
            ServerChannelImpl target = i < 0 ? channel : wilds[i];
            if (target != null && !notifyMessageListeners(from, target, channel, message)) {
                return false;
            }
        }
        if (!channelId.isBroadcast()) {
            return true;
        }
        message.remove(Message.CLIENT_ID_FIELD);
        message.remove(Message.ID_FIELD);
        // Lazy when marked so, or when any channel it is published to is lazy, wildcards included.
        if (channel.isLazy() || anyLazy(wilds)) {
            message.setLazy(true);
        }
        if (!server.extensionChain().outgoing(from, null, message)) {
            return false;
        }
        Histories histories = server.histories();
        HistoryPolicy policy = histories.isOn() ? Histories.policy(channel, wilds) : null;
        if (policy != null) {
            histories.publish(from, channel, wilds, message, policy);
            return true;
        }
        fanOut(from, channel, wilds, freeze(message));
        return true;
    }

    /** Delivers a frozen broadcast to every subscriber of the channel and of its wildcard channels, once per session. */
    void fanOut(ServerSessionImpl from, ServerChannelImpl channel, ServerChannelImpl[] wilds, ServerMessageImpl frozen) {
        long lazyTimeout = frozen.isLazy() ? lazyTimeout(channel, wilds) : -1;
        boolean toPublisher = channel.isBroadcastToPublisher();
        int populated = channel.subscribers().isEmpty() ? 0 : 1;
        for (ServerChannelImpl wild : wilds) {
            if (wild != null && !wild.subscribers().isEmpty()) {
                populated++;
            }
        }
        if (populated <= 1) {
            // The common case: one channel has subscribers, no session can be reached twice.
            ServerChannelImpl only = !channel.subscribers().isEmpty() ? channel : firstPopulated(wilds);
            if (only != null) {
                for (ServerSessionImpl subscriber : only.subscribers()) {
                    deliverBroadcast(from, subscriber, frozen, lazyTimeout, toPublisher);
                }
            }
            return;
        }
        Set<ServerSessionImpl> reached = new HashSet<>();
        for (int i = -1; i < wilds.length; i++) {
            ServerChannelImpl target = i < 0 ? channel : wilds[i];
            if (target != null) {
                for (ServerSessionImpl subscriber : target.subscribers()) {
                    if (reached.add(subscriber)) {
                        deliverBroadcast(from, subscriber, frozen, lazyTimeout, toPublisher);
                    }
                }
            }
        }
    }
    /** Fans out a stamped message from the history engine to this server's subscribers. */
    void fanOutFromEngine(String channelName, ServerMessage.Mutable message) {
        ServerChannelImpl channel = (ServerChannelImpl) server.createChannelIfAbsent(channelName).getReference();
        ServerChannelImpl[] wilds = wildChannels(channel.getChannelId());
        if (channel.isLazy() || anyLazy(wilds)) {
            message.setLazy(true);
        }
        fanOut(null, channel, wilds, freeze(message));
    }

    /** The wildcard channels that match {@code id}, most specific first, null where none exists. */
    ServerChannelImpl[] wildChannels(ChannelId id) {
        List<String> wildIds = id.getWildIds();
        ServerChannelImpl[] wilds = new ServerChannelImpl[wildIds.size()];
        for (int i = 0; i < wilds.length; i++) {
            wilds[i] = channels.get(wildIds.get(i));
        }
        return wilds;
    }

    /** The message frozen: itself when it is this server's kind, else a copy. */
    static ServerMessageImpl freeze(ServerMessage message) {
        ServerMessageImpl frozen = message instanceof ServerMessageImpl impl ? impl : copyOf(message);
        frozen.freeze();
        return frozen;
    }

    private static boolean anyLazy(ServerChannelImpl[] channels) {
        for (ServerChannelImpl channel : channels) {
            if (channel != null && channel.isLazy()) {
                return true;
            }
        }
        return false;
    }

    /**
     * How long a lazy message may wait: the shortest lazy timeout set on the channel or on a
     * lazy wildcard channel that matches it, never more than {@code maxLazyTimeout}.
     */
    long lazyTimeout(ServerChannelImpl channel, ServerChannelImpl[] wilds) {
        long timeout = server.config().maxLazyTimeout().toMillis();
        if (channel != null && channel.getLazyTimeout() > 0) {
            timeout = Math.min(timeout, channel.getLazyTimeout());
        }
        for (ServerChannelImpl wild : wilds) {
            if (wild != null && wild.isLazy() && wild.getLazyTimeout() > 0) {
                timeout = Math.min(timeout, wild.getLazyTimeout());
            }
        }
        return timeout;
    }

    /** The lazy timeout of a message on {@code channelName}, from that channel and its wildcard channels. */
    private long lazyTimeout(String channelName) {
        if (channelName == null || !ChannelId.isValid(channelName)) {
            return server.config().maxLazyTimeout().toMillis();
        }
        ServerChannelImpl channel = channels.get(channelName);
        return lazyTimeout(channel, wildChannels(channel != null ? channel.getChannelId() : ChannelId.of(channelName)));
    }

    private static ServerChannelImpl firstPopulated(ServerChannelImpl[] channels) {
        for (ServerChannelImpl channel : channels) {
            if (channel != null && !channel.subscribers().isEmpty()) {
                return channel;
            }
        }
        return null;
    }

    private void deliverBroadcast(ServerSessionImpl from, ServerSessionImpl to, ServerMessage message, long lazyTimeout, boolean toPublisher) {
        if (to == from && !(toPublisher && to.isBroadcastToPublisher())) {
            return;
        }
        to.deliverShared(from, message, lazyTimeout);
    }

    private boolean notifyMessageListeners(ServerSessionImpl from, ServerChannelImpl listening, ServerChannelImpl channel, ServerMessage.Mutable message) {
        for (ServerChannel.MessageListener listener : listening.messageListeners()) {
            try {
                if (!listener.onMessage(from, channel, message)) {
                    return false;
                }
            } catch (RuntimeException x) {
                server.logListenerFailure(listener, x);
            }
        }
        return true;
    }

    /** Delivers to one session only: server extensions, freeze, then the session's own path. */
    boolean deliverPrivately(Session sender, ServerSessionImpl to, ServerMessage.Mutable message) {
        ServerSessionImpl from = asServerSession(sender);
        if (!server.extensionChain().outgoing(from, to, message)) {
            return false;
        }
        ServerMessageImpl frozen = freeze(message);
        return to.deliverShared(from, frozen, frozen.isLazy() ? lazyTimeout(frozen.getChannel()) : -1);
    }

    private static ServerMessageImpl copyOf(ServerMessage message) {
        ServerMessageImpl copy = new ServerMessageImpl(message);
        copy.setAssociated(message.getAssociated());
        copy.setLazy(message.isLazy());
        copy.setBayeuxContext(message.getBayeuxContext());
        return copy;
    }

    static ServerSessionImpl asServerSession(Session session) {
        if (session instanceof ServerSessionImpl impl) {
            return impl;
        }
        if (session instanceof LocalSession local && local.getServerSession() instanceof ServerSessionImpl impl) {
            return impl;
        }
        return null;
    }
}
