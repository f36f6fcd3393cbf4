package io.bayeux.server.internal;

import io.bayeux.api.ChannelId;
import io.bayeux.api.Position;
import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.spi.HistoryEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;

/**
 * The histories of a server's channels (see {@link HistoryPolicy}): which policy a channel has,
 * publishing to a channel with history (in memory, or through the {@link HistoryEngine} that
 * keeps it), and the engine's way back in. Until a channel is given a policy, publishing reads
 * one {@code volatile} and does nothing else here.
 */
public final class Histories {
    private static final Logger LOG = LoggerFactory.getLogger(Histories.class);

    private final BayeuxServerImpl server;
    private final HistoryStore memory = new HistoryStore(new SecureRandom(), System::currentTimeMillis);
    private final EngineHistories cursors;
    /** Set once a channel has a history policy; never reset. */
    private volatile boolean on;
    /** Set once a channel has a history policy in the {@code replay} dialect; never reset. */
    private volatile boolean replayDialectOn;
    private volatile HistoryEngine engine;

    Histories(BayeuxServerImpl server) {
        this.server = server;
        this.cursors = new EngineHistories(server);
    }

    /** Whether a channel was ever given a history. */
    boolean isOn() {
        return on;
    }

    /** A channel was given {@code policy}: from now on publishing looks for histories. */
    void configured(HistoryPolicy policy) {
        on = true;
        if (policy.replayIds()) {
            replayDialectOn = true;
        }
    }

    /** Whether a channel was ever given a history in the {@code replay} dialect: handshake replies then announce it. */
    boolean replayDialectOn() {
        return replayDialectOn;
    }

    /** The history policy of a channel: its own, or the most specific of its wildcard channels'. */
    static HistoryPolicy policy(ServerChannelImpl channel, ServerChannelImpl[] wilds) {
        HistoryPolicy policy = channel == null ? null : channel.getHistory();
        for (int i = 0; policy == null && i < wilds.length; i++) {
            policy = wilds[i] == null ? null : wilds[i].getHistory();
        }
        return policy;
    }

    /** The history policy of the channel named {@code channel} (not a wildcard), or null. */
    public HistoryPolicy policy(String channel) {
        if (!on) {
            return null;
        }
        ChannelId id = ChannelId.of(channel);
        if (id.isWild()) {
            return null;
        }
        return policy(server.channel(channel), server.broadcaster().wildChannels(id));
    }

    /**
     * Publishes a broadcast, through the server's extensions already, on a channel with history:
     * the engine that keeps it gives it its position and brings it back to every server, this one
     * too; or else this server's memory gives it the next position of the channel, keeps it and
     * fans it out, all under the history's monitor, so that the channel's messages reach every
     * subscriber in the order of their offsets and a subscription that replays from the history
     * misses none and gets none twice.
     */
    void publish(ServerSessionImpl from, ServerChannelImpl channel, ServerChannelImpl[] wilds, ServerMessage.Mutable message,
                 HistoryPolicy policy) {
        HistoryEngine engine = this.engine;
        if (engine != null && engine.handles(channel.getId())) {
            engine.publish(channel.getId(), Broadcaster.freeze(message), policy);
            return;
        }
        long now = server.scheduler().now();
        while (true) {
            ChannelHistory history = memory.history(channel.getId(), now);
            synchronized (history) {
                if (!memory.isCurrent(history)) {
                    continue;
                }
                HistoryStore.stamp(message, history, policy);
                ServerMessageImpl frozen = Broadcaster.freeze(message);
                history.append(frozen, now, policy);
                server.broadcaster().fanOut(from, channel, wilds, frozen);
                return;
            }
        }
    }

    /** Forgets expired messages, and histories idle for long (see {@link HistoryStore#sweep}). */
    void sweep(long now) {
        if (on) {
            memory.sweep(now, this::policy);
        }
    }

    HistoryStore memory() {
        return memory;
    }

    EngineHistories cursors() {
        return cursors;
    }

    // --- the engine's side

    /**
     * Lets {@code engine} keep the histories of the channels it {@linkplain HistoryEngine#handles
     * handles} (null: this server keeps them all); set before clients subscribe.
     */
    public void setEngine(HistoryEngine engine) {
        this.engine = engine;
    }

    /** The engine that keeps histories, or null. */
    public HistoryEngine engine() {
        return engine;
    }

    /**
     * A message of {@code channel} from the engine, at {@code position}: delivered to this
     * server's subscribers in the order of positions, once, filling from the engine's history
     * any gap before it. Called by the engine, off the event loops, one message at a time.
     */
    public void deliverFromEngine(String channel, ServerMessage.Mutable message, Position position) {
        HistoryEngine engine = this.engine;
        HistoryPolicy policy = policy(channel);
        if (engine == null || policy == null) {
            LOG.debug("A message of {} from the history engine, which has no history here: dropped", channel);
            return;
        }
        cursors.deliver(engine, channel, message, position, policy);
    }

    /** The engine now receives {@code channel}: this server delivers what it missed meanwhile. */
    public void received(String channel) {
        HistoryEngine engine = this.engine;
        HistoryPolicy policy = policy(channel);
        if (engine != null && policy != null) {
            cursors.catchUp(engine, channel, policy);
        }
    }

    /** The engine stopped receiving some channels: this server forgets where it was in their histories. */
    public void receptionChanged() {
        HistoryEngine engine = this.engine;
        if (engine != null) {
            cursors.receptionChanged(engine);
        }
    }

    /** Messages of histories kept by the engine that this server could not deliver: the engine had dropped them. */
    public long unrecoverable() {
        return cursors.unrecoverable();
    }
}
