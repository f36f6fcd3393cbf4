package io.bayeux.benchmarks;

import io.bayeux.server.internal.ServerMessageImpl;

import java.util.Map;

/** The messages the benchmarks send: a chat line whose text makes the data about {@code dataBytes} of JSON. */
final class Payloads {
    private Payloads() {
    }

    /** The data of a message: {@code {"user":"bench","text":"xx…"}}, about {@code dataBytes} long as JSON. */
    static Map<String, Object> data(int dataBytes) {
        int overhead = "{\"user\":\"bench\",\"text\":\"\"}".length();
        return Map.of("user", "bench", "text", "x".repeat(Math.max(1, dataBytes - overhead)));
    }

    /** A broadcast as the core delivers it: channel and data, frozen (so its JSON is computed once, then shared). */
    static ServerMessageImpl frozenBroadcast(String channel, int dataBytes) {
        ServerMessageImpl message = new ServerMessageImpl();
        message.setChannel(channel);
        message.setData(data(dataBytes));
        message.freeze();
        return message;
    }
}
