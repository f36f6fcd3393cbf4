package io.bayeux.server.internal;

import io.bayeux.api.Position;
import io.bayeux.api.server.HistoryPolicy;
import io.bayeux.api.server.ServerMessage;
import io.bayeux.server.spi.HistoryEngine;
import io.bayeux.server.spi.ServerObserver;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A subscription to a channel with history: it replays what the client asks for and joins the
 * channel's subscribers in one step, under the lock under which the channel's messages are
 * fanned out on this server; so the replayed messages come first, in order, and the live ones
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

    /** What a subscription asked for: a position to recover from, or a replay id, or neither. */
    record Request(String channel, HistoryPolicy policy, Position from, Long replayId) {
    }

    /**
     * What to do: replay the messages in {@code (after, upTo]} (none when {@code after >= upTo}),
     * then say {@code outcome} (positions dialect), or fail with {@code error} (replay dialect).
     */
    record Decision(long after, long upTo, Map<String, Object> outcome, String error) {
        boolean replays() {
            return error == null && after < upTo;
        }
    }

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
     * asked for, from this server's memory or from the engine that keeps the channel's history.
     *
     * @return false after an error reply
     */
    static boolean subscribe(BayeuxServerImpl server, Exchange exchange, ServerChannelImpl channel, HistoryPolicy policy) {
        String name = channel.getId();
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
        Request request = new Request(name, policy, policy.replayIds() ? null : recoverFrom(exchange.message, name), replayId);
        HistoryEngine engine = server.histories().engine();
        Decision decision;
        if (engine != null && engine.handles(name)) {
            try {
                decision = server.histories().cursors().subscribe(engine, exchange.session, channel, request, exchange.message);
            } catch (IllegalStateException x) {
                exchange.error("503:" + name + ":history_unavailable");
                observe(server, request, "unavailable", null);
                return false;
            }
        } else {
            decision = subscribeInMemory(server, exchange, channel, request);
        }
        observe(server, request, null, decision);
        if (decision.error != null) {
            exchange.error(decision.error);
            return false;
        }
        if (decision.outcome != null) {
            outcomes(exchange).put(name, decision.outcome);
        }
        return true;
    }

    /** Tells the observer, if any, how a subscription that asked to recover went. */
    private static void observe(BayeuxServerImpl server, Request request, String failure, Decision decision) {
        ServerObserver observer = server.observer();
        // A replay id of "new only" asks for nothing from the history.
        if (observer == null || (request.from == null && (request.replayId == null || request.replayId == NEW_ONLY))) {
            return;
        }
        if (failure != null) {
            observer.recovery(failure, 0);
        } else if (decision.error != null) {
            observer.recovery("refused", 0);
        } else {
            Object reason = decision.outcome == null ? null : decision.outcome.get(Position.REASON_FIELD);
            observer.recovery(reason instanceof String r ? r : "recovered", Math.max(0, decision.upTo - decision.after));
        }
    }

    private static Decision subscribeInMemory(BayeuxServerImpl server, Exchange exchange, ServerChannelImpl channel, Request request) {
        long now = server.scheduler().now();
        ServerSessionImpl session = exchange.session;
        while (true) {
            ChannelHistory history = server.histories().memory().history(request.channel, now);
            ServerChannelImpl joined;
            Decision decision;
            synchronized (history) {
                if (!server.histories().memory().isCurrent(history)) {
                    continue;
                }
                history.expire(now, request.policy);
                decision = decide(request, history.epoch, history.top(), history.beforeFirst() + 1, history.evicted());
                if (decision.error != null) {
                    return decision;
                }
                if (decision.replays()) {
                    for (ServerMessage message : history.after(decision.after)) {
                        session.deliverReplayed(message);
                    }
                }
                joined = channel.join(session);
            }
            if (joined != null) {
                joined.notifySubscribed(session, exchange.message);
            }
            return decision;
        }
    }

    /**
     * Decides a subscription against a history whose last message delivered here is {@code top}
     * and whose first message kept is {@code first}.
     */
    static Decision decide(Request request, String epoch, long top, long first, String evicted) {
        return decide(request, epoch, top, top, first, evicted);
    }

    /**
     * As above, for a history kept elsewhere whose last message is {@code newest}, of which this
     * server delivered up to {@code top}: what lies between is on its way here and comes live.
     */
    static Decision decide(Request request, String epoch, long top, long newest, long first, String evicted) {
        if (request.policy.replayIds()) {
            Long id = request.replayId;
            if (id == null || id == NEW_ONLY) {
                return new Decision(top, top, null, null);
            }
            if (id == ALL_RETAINED) {
                return new Decision(first - 1, top, null, null);
            }
            if (id > newest || id + 1 < first) {
                return new Decision(top, top, null, "400:" + request.channel + "," + id + ":replay_id_invalid");
            }
            return new Decision(Math.min(id, top), top, null, null);
        }
        Map<String, Object> outcome = new LinkedHashMap<>();
        outcome.put(Position.OFFSET_FIELD, top);
        outcome.put(Position.EPOCH_FIELD, epoch);
        Position from = request.from;
        if (from == null) {
            return new Decision(top, top, outcome, null);
        }
        String reason = !from.epoch().equals(epoch) ? "epoch"
                : from.offset() > newest ? "ahead"
                : from.offset() + 1 < first ? evicted
                : null;
        if (reason != null) {
            outcome.put(Position.RECOVERED_FIELD, false);
            outcome.put(Position.REASON_FIELD, reason);
            return new Decision(top, top, outcome, null);
        }
        outcome.put(Position.RECOVERED_FIELD, true);
        outcome.put(Position.REPLAYED_FIELD, Math.max(0, top - from.offset()));
        return new Decision(Math.min(from.offset(), top), top, outcome, null);
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
        if (value instanceof Number number) {
            double d = number.doubleValue();
            return number instanceof Double || number instanceof Float ? (d == Math.rint(d) ? (Long) number.longValue() : null) : (Long) number.longValue();
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

    /** The messages of {@code entries} in {@code (after, upTo]}. */
    static List<HistoryEngine.Entry> within(List<HistoryEngine.Entry> entries, long after, long upTo) {
        return entries.stream().filter(e -> e.offset() > after && e.offset() <= upTo).toList();
    }
}
