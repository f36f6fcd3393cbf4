package io.bayeux.client.ext;

import io.bayeux.api.Channel;
import io.bayeux.api.Message;
import io.bayeux.api.Position;
import io.bayeux.api.client.ClientSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Recovery from channel history, client side (see the server's {@code HistoryPolicy}): remembers
 * the position of the last message of every channel with history, sends it with every
 * {@code /meta/subscribe} of that channel ({@code ext.recover}) — after a re-handshake, a
 * reconnect, or a {@code 409::queue_full} — so that the server replays exactly what was missed,
 * drops a message it delivered already (not one that comes late, after one with a higher offset,
 * up to 4,096 offsets below it), and tells the {@link Listener}s how each recovery went.
 * A channel without history that was subscribed when the session was lost is reported as not
 * recovered ({@value #NO_HISTORY}): the application should reload its state.
 *
 * <pre>{@code
 * RecoveryExtension recovery = new RecoveryExtension();
 * recovery.addListener((channel, outcome) -> { if (!outcome.recovered()) reload(channel); });
 * client.addExtension(recovery);
 * }</pre>
 *
 * Thread-safe: its state is guarded by this object's monitor; listeners are called without it.
 */
public final class RecoveryExtension implements ClientSession.Extension {
    private static final Logger LOG = LoggerFactory.getLogger(RecoveryExtension.class);
    /** The reason given for a channel without history whose messages may have been lost. */
    public static final String NO_HISTORY = "no_history";

    /** How a subscription went: recovered with {@code replayed} messages, or not, for {@code reason}. */
    public record Outcome(boolean recovered, int replayed, String reason) {
    }

    /** Told of each subscription that asked to recover, and of each channel that lost messages without history. */
    @FunctionalInterface
    public interface Listener {
        void onRecovery(String channel, Outcome outcome);
    }

    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    /** What was delivered of each channel with history. Guarded by this. */
    private final Map<String, Delivered> positions = new HashMap<>();
    /** The channels whose subscription the server confirmed in this session. Guarded by this. */
    private final Set<String> subscribed = new HashSet<>();
    /** The channels subscribed when the last session ended, not subscribed again yet. Guarded by this. */
    private final Set<String> lost = new HashSet<>();
    /** Whether a session was handshaken already: a later handshake means the last one was lost. Guarded by this. */
    private boolean handshaken;

    public void addListener(Listener listener) {
        listeners.add(listener);
    }

    public void removeListener(Listener listener) {
        listeners.remove(listener);
    }

    /** The last position of each channel with history (a copy). */
    public synchronized Map<String, Position> positions() {
        Map<String, Position> copy = new HashMap<>();
        positions.forEach((channel, delivered) -> copy.put(channel, delivered.position()));
        return Map.copyOf(copy);
    }

    /**
     * Sets where the client stands in a channel's history, for instance a position the
     * application kept from an earlier run: the next subscription to the channel recovers from it.
     */
    public synchronized void setPosition(String channel, Position position) {
        positions.put(channel, new Delivered(position));
    }

    @Override
    public boolean sendMeta(ClientSession session, Message.Mutable message) {
        if (!Channel.META_SUBSCRIBE.equals(message.getChannel())) {
            return true;
        }
        Map<String, Object> recover = new LinkedHashMap<>();
        synchronized (this) {
            for (String channel : channels(message.get(Message.SUBSCRIPTION_FIELD))) {
                Delivered delivered = positions.get(channel);
                if (delivered != null) {
                    recover.put(channel, delivered.position().toMap());
                }
            }
        }
        if (!recover.isEmpty()) {
            message.getExt(true).put(Position.RECOVER_FIELD, recover);
        }
        return true;
    }

    @Override
    public boolean rcvMeta(ClientSession session, Message.Mutable message) {
        String channel = message.getChannel();
        if (Channel.META_HANDSHAKE.equals(channel) && message.isSuccessful()) {
            synchronized (this) {
                if (handshaken) {
                    lost.addAll(subscribed);
                }
                handshaken = true;
                subscribed.clear();
            }
        } else if (Channel.META_SUBSCRIBE.equals(channel) && message.isSuccessful()) {
            subscribed(message);
        } else if (Channel.META_UNSUBSCRIBE.equals(channel) && message.isSuccessful()) {
            synchronized (this) {
                for (String name : channels(message.get(Message.SUBSCRIPTION_FIELD))) {
                    subscribed.remove(name);
                    positions.remove(name);
                    lost.remove(name);
                }
            }
        }
        return true;
    }

    private void subscribed(Message reply) {
        Map<String, Object> ext = reply.getExt();
        Map<?, ?> history = ext != null && ext.get(Position.HISTORY_FIELD) instanceof Map<?, ?> map ? map : Map.of();
        Map<String, Outcome> outcomes = new LinkedHashMap<>();
        synchronized (this) {
            for (String name : channels(reply.get(Message.SUBSCRIPTION_FIELD))) {
                subscribed.add(name);
                boolean wasLost = lost.remove(name);
                if (!(history.get(name) instanceof Map<?, ?> entry)) {
                    if (wasLost) {
                        outcomes.put(name, new Outcome(false, 0, NO_HISTORY));
                    }
                    continue;
                }
                Object recovered = entry.get(Position.RECOVERED_FIELD);
                Position start = Position.from(entry);
                if (Boolean.TRUE.equals(recovered)) {
                    // The replayed messages may come after this reply: the position moves with them.
                    int replayed = entry.get(Position.REPLAYED_FIELD) instanceof Number n ? n.intValue() : 0;
                    outcomes.put(name, new Outcome(true, replayed, null));
                } else if (Boolean.FALSE.equals(recovered)) {
                    // Nothing was replayed: what comes now follows where the subscription starts.
                    outcomes.put(name, new Outcome(false, 0, String.valueOf(entry.get(Position.REASON_FIELD))));
                    if (start != null) {
                        positions.put(name, new Delivered(start));
                    } else {
                        positions.remove(name);
                    }
                } else if (start != null) {
                    advance(name, start);
                }
            }
        }
        outcomes.forEach(this::tell);
    }

    @Override
    public boolean rcv(ClientSession session, Message.Mutable message) {
        Position position = Position.of(message);
        String channel = message.getChannel();
        if (position == null || channel == null) {
            return true;
        }
        synchronized (this) {
            Delivered delivered = positions.get(channel);
            if (delivered == null) {
                positions.put(channel, new Delivered(position));
            } else if (!delivered.deliver(position)) {
                LOG.debug("Dropping {} on {}: delivered already (last {})", position, channel, delivered.position());
                return false;
            }
        }
        return true;
    }

    /** Under the monitor: moves a channel's position forward, or to another epoch; never back. */
    private void advance(String channel, Position position) {
        Delivered delivered = positions.get(channel);
        if (delivered == null) {
            positions.put(channel, new Delivered(position));
        } else {
            delivered.advance(position);
        }
    }

    private void tell(String channel, Outcome outcome) {
        for (Listener listener : listeners) {
            try {
                listener.onRecovery(channel, outcome);
            } catch (RuntimeException x) {
                LOG.warn("Recovery listener {} failed on {} {}", listener, channel, outcome, x);
            }
        }
    }

    private static List<String> channels(Object subscription) {
        if (subscription instanceof String name) {
            return List.of(name);
        }
        if (subscription instanceof List<?> list) {
            return list.stream().filter(String.class::isInstance).map(String.class::cast).toList();
        }
        return List.of();
    }
}
