package io.bayeux.transport;

import io.bayeux.common.json.JacksonJsonCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Over WebSocket, a session handshaken without a cookie belongs to the BAYEUX_BROWSER cookie the
 * upgrade response set: it keeps working on its own connection, while another browser's cookie,
 * or another connection without a cookie, cannot use its clientId.
 */
class WebSocketBrowserIT {
    private static final JacksonJsonCodec JSON = new JacksonJsonCodec();
    private static final String OTHER_BROWSER = "fedcba9876543210fedcba9876543210";
    @RegisterExtension
    final ServerPerTest server = new ServerPerTest();

    @Test
    void aCookieLessSessionWorksOnItsOwnConnectionOnly() throws Exception {
        String connect;
        try (RawWebSocket first = RawWebSocket.open(server.port(), "/cometd")) {
            first.sendText("[{\"channel\":\"/meta/handshake\",\"version\":\"1.0\",\"supportedConnectionTypes\":[\"websocket\"],\"id\":\"1\"}]");
            String clientId = (String) reply(first, "/meta/handshake").get("clientId");
            connect = "[{\"channel\":\"/meta/connect\",\"connectionType\":\"websocket\",\"advice\":{\"timeout\":0},\"id\":\"2\",\"clientId\":\"" + clientId + "\"}]";
            first.sendText(connect);
            assertEquals(true, reply(first, "/meta/connect").get("successful"));
            try (RawWebSocket stolen = RawWebSocket.open(server.port(), "/cometd", List.of("Cookie: BAYEUX_BROWSER=" + OTHER_BROWSER))) {
                stolen.sendText(connect);
                assertEquals("402::session_unknown", reply(stolen, "/meta/connect").get("error"));
            }
            try (RawWebSocket again = RawWebSocket.open(server.port(), "/cometd")) {
                again.sendText(connect);
                assertEquals("402::session_unknown", reply(again, "/meta/connect").get("error"));
            }
            first.sendText(connect);
            assertEquals(true, reply(first, "/meta/connect").get("successful"));
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> reply(RawWebSocket socket, String channel) throws Exception {
        for (int i = 0; i < 10; i++) {
            RawWebSocket.Frame frame = socket.read();
            for (Map<String, Object> message : (List<Map<String, Object>>) JSON.parse(frame.payload())) {
                if (channel.equals(message.get("channel")) && message.containsKey("successful")) {
                    return message;
                }
            }
        }
        throw new AssertionError("No reply on " + channel + " in 10 frames");
    }
}
