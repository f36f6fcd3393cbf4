package io.bayeux.server;

import io.bayeux.api.Position;
import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.api.server.ServerMessage;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A subscription to a channel with history: it replays what the client asks for and joins the
 * channel's subscribers in one step under the history's monitor, under which publishes to the
 * channel are fanned out too; so the replayed messages come first, in order, and the live ones
 * follow with none lost and none twice. Recovery is all or nothing: when the history no longer
 * holds every message after the client's position, nothing is replayed and the reply says why.
 *
 * <p>Positions ({@code ext.recover} → {@code ext.history}) or, on a channel of the
 * {@code replay} dialect, Salesforce's {@code ext.replay} ids: {@value #NEW_ONLY} for new
 * messages only, {@value #ALL_RETAINED} for everything kept, {@code N} for what follows
 * {@code N}.
 */
final class Recovery {
    /** The {@code ext} field of the {@code replay} dialect, on the handshake and on subscriptions. */
    static final String REPLAY_FIELD = "replay";
    static final long NEW_ONLY = -1;
    static final long ALL_RETAINED = -2;

    private Recovery() {
    }

    /** A subscription to a channel without history that asked to recover is told so. */
    static void noHistory(Exchange exchange, String channel) {
        if (recoverFrom(exchange.message, channel) != null) {
            Map<String, Object> outcome = new LinkedHashMap<>();
            outcome.put(Position.RECOVERED_FIELD, false);
            outcome.put(Position.REASON_FIELD, "no_history");
            outcomes(exchange).put(channel, outcome);
        }
    }

    /**
     * Subscribes the exchange's session to {@code channel}, which has history, replaying what it
     * asked for.
     *
     * @return false after an error reply (a replay id the history does not cover)
     */
    static boolean subscribe(BayeuxServerImpl server, Exchange exchange, ServerChannelImpl channel, HistoryPolicy policy) {
        String name = channel.getId();
        ServerSessionImpl session = exchange.session;
        Long replayId = null;
        if (policy.replayIds()) {
            Object asked = replayIdAsked(exchange.message, name);
            if (asked != null) {
                replayId = parseReplayId(asked);
                if (replayId == null) {
                    exchange.error("400:" + name + "," + asked + ":replay_id_invalid");
                    return false;
                }
            }
        }
        Position from = policy.replayIds() ? null : recoverFrom(exchange.message, name);
        long now = server.scheduler().now();
        while (true) {
            ChannelHistory history = server.histories().history(name, now);
            ServerChannelImpl joined;
            Map<String, Object> outcome = null;
            synchronized (history) {
                if (!server.histories().isCurrent(history)) {
                    continue;
                }
                List<ServerMessage> replay = List.of();
                if (policy.replayIds()) {
                    if (replayId != null && replayId == ALL_RETAINED) {
                        replay = history.all(now, policy);
                    } else if (replayId != null && replayId != NEW_ONLY) {
                        if (history.gapAfter(replayId, now, policy) != null) {
                            exchange.error("400:" + name + "," + replayId + ":replay_id_invalid");
                            return false;
                        }
                        replay = history.after(replayId);
                    }
                } else {
                    outcome = new LinkedHashMap<>();
                    outcome.put(Position.OFFSET_FIELD, history.top());
                    outcome.put(Position.EPOCH_FIELD, history.epoch);
                    if (from != null) {
                        String reason = from.epoch().equals(history.epoch) ? reasonOf(history.gapAfter(from.offset(), now, policy)) : "epoch";
                        if (reason == null) {
                            replay = history.after(from.offset());
                            outcome.put(Position.RECOVERED_FIELD, true);
                            outcome.put(Position.REPLAYED_FIELD, replay.size());
                        } else {
                            outcome.put(Position.RECOVERED_FIELD, false);
                            outcome.put(Position.REASON_FIELD, reason);
                        }
                    }
                }
                for (ServerMessage message : replay) {
                    session.deliverReplayed(message);
                }
                joined = channel.join(session);
            }
            if (joined != null) {
                joined.notifySubscribed(session, exchange.message);
            }
            if (outcome != null) {
                outcomes(exchange).put(name, outcome);
            }
            return true;
        }
    }

    private static String reasonOf(ChannelHistory.Gap gap) {
        return gap == null ? null : gap.reason;
    }

    /** The reply's {@code ext.history}: channel → where its subscription starts. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> outcomes(Exchange exchange) {
        Map<String, Object> ext = exchange.reply.getExt(true);
        Object outcomes = ext.get(Position.HISTORY_FIELD);
        if (outcomes instanceof Map<?, ?> map) {
            return (Map<String, Object>) map;
        }
        Map<String, Object> made = new LinkedHashMap<>();
        ext.put(Position.HISTORY_FIELD, made);
        return made;
    }

    /** The position the subscription asks to recover {@code channel} from, or null. */
    private static Position recoverFrom(ServerMessage message, String channel) {
        Map<String, Object> ext = message.getExt();
        if (ext != null && ext.get(Position.RECOVER_FIELD) instanceof Map<?, ?> recover) {
            return Position.from(recover.get(channel));
        }
        return null;
    }

    private static Object replayIdAsked(ServerMessage message, String channel) {
        Map<String, Object> ext = message.getExt();
        if (ext != null && ext.get(REPLAY_FIELD) instanceof Map<?, ?> replay) {
            return replay.get(channel);
        }
        return null;
    }

    /** A replay id given as a whole number or a string holding one (as some clients send it), or null. */
    private static Long parseReplayId(Object value) {
        if (value instanceof Number number && !(number instanceof Double || number instanceof Float)) {
            return number.longValue();
        }
        if (value instanceof Number number && number.doubleValue() == Math.rint(number.doubleValue())) {
            return number.longValue();
        }
        if (value instanceof String text) {
            try {
                return Long.parseLong(text.trim());
            } catch (NumberFormatException x) {
                return null;
            }
        }
        return null;
    }
}
