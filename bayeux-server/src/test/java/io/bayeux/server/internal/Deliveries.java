package io.bayeux.server.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Collects what a {@link TestClient} has been delivered so far, the same way for both kinds
 * of transport, so that tests can be parameterized by transport. Everything the core does on
 * a publish or a deliver happens on the calling thread, so once that call returned, its
 * deliveries are either pushed already or waiting in the session queue.
 */
final class Deliveries {
    private Deliveries() {
    }

    /**
     * Takes the client's deliveries (messages without {@code successful}): the pushed ones for a
     * pushing client; for a long-polling client, those carried by a {@code /meta/connect} that
     * asks, with {@code advice: {timeout: 0}}, to be answered at once.
     */
    static List<Map<String, Object>> drain(TestClient client) {
        List<Map<String, Object>> messages = new ArrayList<>();
        if ("websocket".equals(client.transportName())) {
            client.pushed.drainTo(messages);
        } else {
            Map<String, Object> connect = client.connectMessage();
            connect.put("advice", Map.of("timeout", 0));
            messages.addAll(client.call(connect));
        }
        return onlyDeliveries(messages);
    }

    /** The deliveries among {@code messages}, on any channel, in order. */
    static List<Map<String, Object>> onlyDeliveries(List<Map<String, Object>> messages) {
        List<Map<String, Object>> result = new ArrayList<>();
        for (Map<String, Object> message : messages) {
            if (!message.containsKey("successful")) {
                result.add(message);
            }
        }
        return result;
    }

    /** The {@code data} of each delivery, in order. */
    static List<Object> data(List<Map<String, Object>> deliveries) {
        List<Object> result = new ArrayList<>();
        for (Map<String, Object> delivery : deliveries) {
            result.add(delivery.get("data"));
        }
        return result;
    }

    /** The {@code channel} of each delivery, in order. */
    static List<Object> channels(List<Map<String, Object>> deliveries) {
        List<Object> result = new ArrayList<>();
        for (Map<String, Object> delivery : deliveries) {
            result.add(delivery.get("channel"));
        }
        return result;
    }
}
