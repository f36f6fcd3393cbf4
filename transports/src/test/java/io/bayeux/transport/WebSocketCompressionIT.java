package io.bayeux.transport;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** permessage-deflate is offered only when enabled. */
class WebSocketCompressionIT {
    @Test
    void permessageDeflateIsNegotiatedOnlyWhenEnabled() throws Exception {
        for (boolean enabled : new boolean[]{true, false}) {
            NettyBayeuxServer server = NettyBayeuxServer.builder().port(0).websocketCompression(enabled).build().start();
            try (RawHttp http = RawHttp.connect(server.port())) {
                http.write(RawHttp.request("GET", "/cometd", List.of("Connection: Upgrade", "Upgrade: websocket",
                        "Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                        "Sec-WebSocket-Extensions: permessage-deflate"), null));
                String status = RawHttp.readLine(http.input());
                Map<String, List<String>> headers = RawHttp.readHeaders(http.input());
                assertTrue(status.contains(" 101 "), status);
                List<String> extensions = headers.get("sec-websocket-extensions");
                if (enabled) {
                    assertTrue(extensions != null && extensions.get(0).contains("permessage-deflate"), headers.toString());
                } else {
                    assertNull(extensions, headers.toString());
                }
            } finally {
                server.stop();
            }
        }
    }
}
