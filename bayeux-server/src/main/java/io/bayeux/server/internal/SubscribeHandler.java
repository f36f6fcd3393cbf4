package io.bayeux.server.internal;

import io.bayeux.api.ChannelId;
import io.bayeux.api.Message;
import io.bayeux.api.server.Authorizer;
import io.bayeux.api.server.HistoryPolicy;

import java.util.ArrayList;
import java.util.List;

/** {@code /meta/subscribe} and {@code /meta/unsubscribe}: one channel or an array of them. */
final class SubscribeHandler implements MetaHandler {
    private final BayeuxServerImpl server;
    private final boolean subscribe;

    SubscribeHandler(BayeuxServerImpl server, boolean subscribe) {
        this.server = server;
        this.subscribe = subscribe;
    }

    @Override
    public void handle(Exchange exchange) {
        List<String> names = subscriptions(exchange);
        if (names == null) {
            return;
        }
        for (String name : names) {
            if (!(subscribe ? subscribe(exchange, name) : unsubscribe(exchange, name))) {
                return;
            }
        }
        exchange.reply.setSuccessful(true);
    }

    /** The subscription field as a list of valid names, or null after an error reply. */
    private static List<String> subscriptions(Exchange exchange) {
        Object field = exchange.message.get(Message.SUBSCRIPTION_FIELD);
        if (field == null) {
            exchange.error("403::subscription_missing");
            return null;
        }
        List<String> names = new ArrayList<>();
        if (field instanceof String name) {
            names.add(name);
        } else if (field instanceof List<?> list && !list.isEmpty()) {
            for (Object item : list) {
                if (!(item instanceof String name)) {
                    exchange.error("403::subscription_invalid");
                    return null;
                }
                names.add(name);
            }
        } else {
            exchange.error("403::subscription_invalid");
            return null;
        }
        for (String name : names) {
            if (!ChannelId.isValid(name)) {
                exchange.error("403::subscription_invalid");
                return null;
            }
        }
        return names;
    }

    private boolean subscribe(Exchange exchange, String name) {
        ServerSessionImpl session = exchange.session;
        ChannelId id = ChannelId.of(name);
        // The channel may be swept between its creation and the subscription: try again then.
        for (int attempt = 0; attempt < 3; attempt++) {
            ServerChannelImpl channel = server.channel(name);
            if (channel == null) {
                Authorizer.Result create = server.authorize(Authorizer.Operation.CREATE, id, null, session, exchange.message);
                if (create instanceof Authorizer.Result.Denied denied) {
                    exchange.error("403:" + denied.reason() + ":create_denied");
                    return false;
                }
                channel = (ServerChannelImpl) server.createChannelIfAbsent(name).getReference();
            }
            Authorizer.Result result = server.authorize(Authorizer.Operation.SUBSCRIBE, id, channel, session, exchange.message);
            if (result instanceof Authorizer.Result.Denied denied) {
                exchange.error("403:" + denied.reason() + ":subscribe_denied");
                return false;
            }
            HistoryPolicy policy = id.isWild() ? null : server.histories().policy(name);
            if (policy == null) {
                channel.subscribe(session, exchange.message);
                if (!id.isWild()) {
                    Recovery.noHistory(exchange, name);
                }
            } else {
                // Joined, or refused: the channel it joined may be a swept one's successor, never subscribed twice.
                return Recovery.subscribe(server, exchange, channel, policy);
            }
            if (server.channel(name) == channel) {
                return true;
            }
            channel.unsubscribe(session, exchange.message);
        }
        exchange.error("403::subscribe_failed");
        return false;
    }

    private boolean unsubscribe(Exchange exchange, String name) {
        ServerChannelImpl channel = server.channel(name);
        if (channel == null) {
            exchange.error("400::channel_missing");
            return false;
        }
        if (!channel.unsubscribe(exchange.session, exchange.message)) {
            exchange.error("403::unsubscribe_failed");
            return false;
        }
        return true;
    }
}
