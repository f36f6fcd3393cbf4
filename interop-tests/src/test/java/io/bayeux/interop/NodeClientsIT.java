package io.bayeux.interop;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

/**
 * The CometD JavaScript client (in Node, and in Debian's Chromium over WebSocket) and Faye's Node
 * client, unmodified, against the demo server, with permessage-deflate where they offer it:
 * runs {@code node --test} in {@code src/test/node} (its {@code *.test.mjs} files) with the
 * server's endpoint in {@code BAYEUX_URL} and expects exit code 0. Both clients keep cookies,
 * as long-polling against a server that binds sessions to the browser cookie requires.
 *
 * <p>Needs Node; {@code -Dinterop.node.skip=true} skips it (see {@link NodeScripts}).
 */
class NodeClientsIT {
    private InteropServer server;

    @BeforeEach
    void start() {
        server = new InteropServer();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void theCometDJavaScriptClientAndFayeWorkOverWebSocketAndLongPolling() throws Exception {
        NodeScripts.nodeTest(List.of(), Map.of("BAYEUX_URL", server.uri().toString()));
    }
}
